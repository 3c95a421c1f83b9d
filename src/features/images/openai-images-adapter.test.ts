import { describe, expect, it } from 'vitest';

import type { ImageJobParameters } from './image-types.ts';
import { openaiImagesAdapter } from './openai-images-adapter.ts';

const parameters: ImageJobParameters = {
  prompt: 'a lighthouse',
  aspectRatio: '2:3',
  resolution: '1K',
  outputFormat: 'png',
  quality: null,
  n: 3,
};

describe('openaiImagesAdapter (POST /v1/images/generations and /v1/images/edits)', () => {
  it('maps the ratio to a size, leaves quality out when none is set, and names the format', () => {
    const call = openaiImagesAdapter.buildSubmit({
      parameters,
      upstreamModel: 'gpt-image-1',
      inputImages: [],
      apiKey: 'sk',
    });
    expect(call.path).toBe('/v1/images/generations');
    expect(call.headers.authorization).toBe('Bearer sk');
    expect(JSON.parse(call.body as string)).toEqual({
      model: 'gpt-image-1',
      prompt: 'a lighthouse',
      n: 3,
      size: '1024x1536',
      output_format: 'png',
    });
  });

  it('names what it cannot express: other ratios, 2K/4K and more than 8 reference images', () => {
    expect(openaiImagesAdapter.checkParameters(parameters, 8)).toEqual([]);
    const issues = openaiImagesAdapter.checkParameters(
      { ...parameters, aspectRatio: '16:9', resolution: '4K' },
      9,
    );
    expect(issues.map((issue) => issue.param)).toEqual([
      'aspect_ratio',
      'resolution',
      'input_images',
    ]);
  });

  it('sends reference images to /v1/images/edits as multipart image[] files', () => {
    const images = ['one', 'two'].map((name) => ({
      name: `${name}.png`,
      mediaType: 'image/png',
      bytes: Buffer.from(name),
    }));
    const call = openaiImagesAdapter.buildSubmit({
      parameters: { ...parameters, quality: 'high' },
      upstreamModel: 'gpt-image-1',
      inputImages: images,
      apiKey: 'sk',
    });
    expect(call.path).toBe('/v1/images/edits');
    expect(call.body).toBeUndefined();
    expect(call.headers).toEqual({ accept: 'application/json', authorization: 'Bearer sk' });
    expect(call.form?.fields).toEqual([
      { name: 'model', value: 'gpt-image-1' },
      { name: 'prompt', value: 'a lighthouse' },
      { name: 'n', value: '3' },
      { name: 'size', value: '1024x1536' },
      { name: 'quality', value: 'high' },
      { name: 'output_format', value: 'png' },
    ]);
    expect(call.form?.files).toEqual(
      images.map((image) => ({
        name: 'image[]',
        filename: image.name,
        mediaType: 'image/png',
        bytes: image.bytes,
      })),
    );
  });

  it('reads every b64_json image, and refuses an answer without them', () => {
    const answer = openaiImagesAdapter.readSubmit({
      data: [{ b64_json: Buffer.from('one').toString('base64') }, { b64_json: 'dHdv' }],
    });
    expect(answer).toEqual({ kind: 'images', images: [Buffer.from('one'), Buffer.from('two')] });
    expect(openaiImagesAdapter.readSubmit({ data: [{ url: 'https://x' }] })).toBeUndefined();
    expect(openaiImagesAdapter.readSubmit({})).toBeUndefined();
  });
});
