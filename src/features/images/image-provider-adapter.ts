import type { CheckedInputImage, ImageJobParameters } from './image-types.ts';

/** A field the provider kind cannot express: the request is refused with 400 naming it. */
export interface ImageParameterIssue {
  param: string;
  message: string;
}

/** What an adapter asks to send; `url` is absolute for polls and downloads. */
export interface ImageUpstreamCall {
  method: 'GET' | 'POST';
  /** Relative to the provider's base URL, or an absolute URL the upstream gave. */
  path?: string;
  url?: string;
  headers: Record<string, string>;
  body?: string;
  /** A multipart/form-data body instead of `body`; its content type is set when it is sent. */
  form?: ImageUpstreamForm;
}

/** The parts of a multipart body, in order: text fields, then files. */
export interface ImageUpstreamForm {
  fields: Array<{ name: string; value: string }>;
  files: Array<{ name: string; filename: string; mediaType: string; bytes: Buffer }>;
}

export type ImageSubmitAnswer =
  /** A synchronous upstream: the images themselves. */
  | { kind: 'images'; images: Buffer[] }
  /** A job-style upstream: what to poll. */
  | { kind: 'job'; upstreamJobId: string; pollUrl: string };

export type ImagePollAnswer =
  | { kind: 'pending' }
  | { kind: 'ready'; sampleUrls: string[] }
  /** `refused`: the upstream judged the request (moderation): a client error, not a fault. */
  | { kind: 'failed'; refused: boolean; message: string };

/** One image upstream's wire format (docs/images.md). Pure: no I/O. */
export interface ImageProviderAdapter {
  mode: 'sync' | 'job';
  /** The most reference images this wire format can carry; a model may not offer more. */
  maxInputImages: number;
  /**
   * OpenAI's `size` (`WxH` or `auto`) this kind asks the upstream for with this aspect ratio and
   * resolution, when it names one exactly; undefined when the upstream picks the pixels itself.
   */
  exactSize(aspectRatio: string, resolution: ImageJobParameters['resolution']): string | undefined;
  /** What this kind cannot express of a request, each naming the client's field. */
  checkParameters(parameters: ImageJobParameters, inputImages: number): ImageParameterIssue[];
  buildSubmit(input: {
    parameters: ImageJobParameters;
    upstreamModel: string;
    inputImages: CheckedInputImage[];
    apiKey: string | undefined;
  }): ImageUpstreamCall;
  /** A 2xx answer to the submit; undefined when it is not this upstream's answer shape. */
  readSubmit(body: unknown): ImageSubmitAnswer | undefined;
  buildPoll?(pollUrl: string, apiKey: string | undefined): ImageUpstreamCall;
  readPoll?(body: unknown): ImagePollAnswer | undefined;
}

/** A record, or undefined for anything else (upstream JSON is untrusted). */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
