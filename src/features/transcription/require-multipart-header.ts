import { ApiError } from '../../canonical/generation-error.ts';

const multipartFormData = /^multipart\/form-data\s*(;|$)/i;
const boundaryParameter = /;\s*boundary\s*=\s*("[^"]+"|[^\s;]+)/i;

/**
 * Refuses a transcription whose `content-type` is not `multipart/form-data` with a boundary,
 * from the headers: 415 for another type (docs/transcription.md), 400 without a boundary. The
 * body of such a request is never read, however large it is.
 */
export function requireMultipartHeader(contentType: string | undefined): void {
  if (contentType === undefined || !multipartFormData.test(contentType)) {
    throw new ApiError('unsupported_media_type', 'Send the transcription as multipart/form-data.');
  }
  if (!boundaryParameter.test(contentType)) {
    throw new ApiError(
      'invalid_header',
      'The content-type multipart/form-data has no boundary parameter; let the HTTP client build the form.',
      { details: { param: 'content-type' } },
    );
  }
}
