import {
  asRecord,
  type ImageParameterIssue,
  type ImageProviderAdapter,
} from './image-provider-adapter.ts';

/**
 * BFL takes one reference image in `input_image` and more in `input_image_2` … `input_image_8`
 * (FLUX.2 [pro] takes eight; FLUX.1 Kontext four: a model's `maxInputImages` says which).
 */
const maxReferenceImages = 8;

function inputImageField(index: number): string {
  return index === 0 ? 'input_image' : `input_image_${index + 1}`;
}

/** BFL's aspect ratios run from 21:9 to 9:21. */
function isWithinBflRange(aspectRatio: string): boolean {
  const [width, height] = aspectRatio.split(':').map(Number);
  if (width === undefined || height === undefined) return false;
  const ratio = width / height;
  return ratio <= 21 / 9 && ratio >= 9 / 21;
}

/**
 * Black Forest Labs' API (FLUX): POST /v1/<model> with `{prompt, aspect_ratio, output_format,
 * input_image…}` and the key in `x-key` answers `{id, polling_url}`; GET polling_url (with the
 * key) answers `{id, status, result}` where status is `Pending`, `Ready` (with
 * `result.sample`, a signed URL fetched without the key), `Request Moderated`, `Content
 * Moderated`, `Error` or `Task not found`. One image per request at about one megapixel.
 */
export const bflAdapter: ImageProviderAdapter = {
  mode: 'job',
  maxInputImages: maxReferenceImages,
  // BFL is asked for an aspect ratio and picks the pixels (about one megapixel) itself.
  exactSize() {
    return undefined;
  },
  checkParameters(parameters, inputImages) {
    const issues: ImageParameterIssue[] = [];
    if (parameters.aspectRatio !== 'auto' && !isWithinBflRange(parameters.aspectRatio))
      issues.push({ param: 'aspect_ratio', message: 'this provider offers 21:9 to 9:21' });
    if (parameters.resolution !== '1K')
      issues.push({ param: 'resolution', message: 'this provider generates 1K images only' });
    if (parameters.n !== 1)
      issues.push({ param: 'n', message: 'this provider generates one image per request' });
    if (parameters.quality !== null)
      issues.push({ param: 'quality', message: 'this provider has no quality setting' });
    if (inputImages > maxReferenceImages)
      issues.push({
        param: 'input_images',
        message: `this provider takes at most ${maxReferenceImages} reference images`,
      });
    return issues;
  },
  buildSubmit({ parameters, upstreamModel, inputImages, apiKey }) {
    const body: Record<string, unknown> = {
      prompt: parameters.prompt,
      output_format: parameters.outputFormat === 'jpg' ? 'jpeg' : 'png',
    };
    if (parameters.aspectRatio !== 'auto') body.aspect_ratio = parameters.aspectRatio;
    inputImages.forEach((image, index) => {
      body[inputImageField(index)] = image.bytes.toString('base64');
    });
    return {
      method: 'POST',
      path: `/v1/${encodeURIComponent(upstreamModel)}`,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(apiKey === undefined ? {} : { 'x-key': apiKey }),
      },
      body: JSON.stringify(body),
    };
  },
  readSubmit(body) {
    const record = asRecord(body);
    if (typeof record?.id !== 'string' || typeof record.polling_url !== 'string') return undefined;
    return { kind: 'job', upstreamJobId: record.id, pollUrl: record.polling_url };
  },
  buildPoll(pollUrl, apiKey) {
    return {
      method: 'GET',
      url: pollUrl,
      headers: { accept: 'application/json', ...(apiKey === undefined ? {} : { 'x-key': apiKey }) },
    };
  },
  readPoll(body) {
    const record = asRecord(body);
    const status = record?.status;
    if (typeof status !== 'string') return undefined;
    switch (status) {
      case 'Pending':
        return { kind: 'pending' };
      case 'Ready': {
        const sample = asRecord(record?.result)?.sample;
        return typeof sample === 'string' ? { kind: 'ready', sampleUrls: [sample] } : undefined;
      }
      case 'Request Moderated':
      case 'Content Moderated':
        return { kind: 'failed', refused: true, message: `The provider refused it: ${status}.` };
      default:
        // `Error`, `Task not found` and any status this version does not know.
        return { kind: 'failed', refused: false, message: `The provider answered ${status}.` };
    }
  },
};
