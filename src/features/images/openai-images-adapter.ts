import {
  asRecord,
  type ImageParameterIssue,
  type ImageProviderAdapter,
} from './image-provider-adapter.ts';

/** GPT Image sizes at about one megapixel, by aspect ratio (`auto` lets the model choose). */
const sizes: Record<string, string> = {
  auto: 'auto',
  '1:1': '1024x1024',
  '3:2': '1536x1024',
  '2:3': '1024x1536',
};

/** OpenAI's edits endpoint takes up to 16 images; the contract stops at 8. */
const maxReferenceImages = 8;

/**
 * OpenAI's image API: POST /v1/images/generations with `{model, prompt, n, size, quality,
 * output_format}`, or with reference images POST /v1/images/edits, the same fields as
 * multipart/form-data and each image as an `image[]` file; GPT Image models always answer
 * `{data: [{b64_json}]}`. Its largest sizes are about one megapixel, so only `1K` is expressible.
 */
export const openaiImagesAdapter: ImageProviderAdapter = {
  mode: 'sync',
  maxInputImages: maxReferenceImages,
  exactSize(aspectRatio, resolution) {
    return resolution === '1K' ? sizes[aspectRatio] : undefined;
  },
  checkParameters(parameters, inputImages) {
    const issues: ImageParameterIssue[] = [];
    if (sizes[parameters.aspectRatio] === undefined)
      issues.push({
        param: 'aspect_ratio',
        message: `this provider offers ${Object.keys(sizes).join(', ')}`,
      });
    if (parameters.resolution !== '1K')
      issues.push({ param: 'resolution', message: 'this provider generates 1K images only' });
    if (inputImages > maxReferenceImages)
      issues.push({
        param: 'input_images',
        message: `this provider takes at most ${maxReferenceImages} reference images`,
      });
    return issues;
  },
  buildSubmit({ parameters, upstreamModel, inputImages, apiKey }) {
    const fields: Record<string, string | number> = {
      model: upstreamModel,
      prompt: parameters.prompt,
      n: parameters.n,
      size: sizes[parameters.aspectRatio] as string,
      ...(parameters.quality === null ? {} : { quality: parameters.quality }),
      output_format: parameters.outputFormat === 'jpg' ? 'jpeg' : 'png',
    };
    const authorization: Record<string, string> =
      apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
    if (inputImages.length === 0) {
      return {
        method: 'POST',
        path: '/v1/images/generations',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...authorization,
        },
        body: JSON.stringify(fields),
      };
    }
    return {
      method: 'POST',
      path: '/v1/images/edits',
      headers: { accept: 'application/json', ...authorization },
      form: {
        fields: Object.entries(fields).map(([name, value]) => ({ name, value: String(value) })),
        files: inputImages.map((image) => ({
          name: 'image[]',
          filename: image.name,
          mediaType: image.mediaType,
          bytes: image.bytes,
        })),
      },
    };
  },
  readSubmit(body) {
    const data = asRecord(body)?.data;
    if (!Array.isArray(data)) return undefined;
    const images: Buffer[] = [];
    for (const item of data) {
      const encoded = asRecord(item)?.b64_json;
      if (typeof encoded !== 'string') return undefined;
      images.push(Buffer.from(encoded, 'base64'));
    }
    return { kind: 'images', images };
  },
};
