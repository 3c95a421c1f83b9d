import { describe, expect, it } from 'vitest';

import { bflAdapter } from './bfl-adapter.ts';
import type { ImageJobParameters } from './image-types.ts';

const parameters: ImageJobParameters = {
  prompt: 'a fox',
  aspectRatio: '16:9',
  resolution: '1K',
  outputFormat: 'jpg',
  quality: null,
  n: 1,
};

describe('bflAdapter (BFL wire format)', () => {
  it('sends the prompt, the ratio, the format as BFL names it, and reference images in order', () => {
    const call = bflAdapter.buildSubmit({
      parameters,
      upstreamModel: 'flux-kontext-pro',
      inputImages: [
        { name: 'a', mediaType: 'image/png', bytes: Buffer.from('first') },
        { name: 'b', mediaType: 'image/png', bytes: Buffer.from('second') },
      ],
      apiKey: 'k',
    });
    expect(call.path).toBe('/v1/flux-kontext-pro');
    expect(call.headers['x-key']).toBe('k');
    expect(JSON.parse(call.body as string)).toEqual({
      prompt: 'a fox',
      aspect_ratio: '16:9',
      output_format: 'jpeg',
      input_image: Buffer.from('first').toString('base64'),
      input_image_2: Buffer.from('second').toString('base64'),
    });
    const auto = bflAdapter.buildSubmit({
      parameters: { ...parameters, aspectRatio: 'auto' },
      upstreamModel: 'm',
      inputImages: [],
      apiKey: undefined,
    });
    expect(JSON.parse(auto.body as string)).not.toHaveProperty('aspect_ratio');
    expect(auto.headers).not.toHaveProperty('x-key');
  });

  it('names each field it cannot express', () => {
    const issues = bflAdapter.checkParameters(
      { ...parameters, aspectRatio: '4:1', resolution: '2K', n: 2, quality: 'high' },
      9,
    );
    expect(issues.map((issue) => issue.param)).toEqual([
      'aspect_ratio',
      'resolution',
      'n',
      'quality',
      'input_images',
    ]);
    expect(bflAdapter.checkParameters({ ...parameters, aspectRatio: '21:9' }, 8)).toEqual([]);
  });

  it('reads the submit and every poll status', () => {
    expect(bflAdapter.readSubmit({ id: 'j1', polling_url: 'https://p/1' })).toEqual({
      kind: 'job',
      upstreamJobId: 'j1',
      pollUrl: 'https://p/1',
    });
    expect(bflAdapter.readSubmit({ id: 'j1' })).toBeUndefined();
    const poll = bflAdapter.readPoll as NonNullable<typeof bflAdapter.readPoll>;
    expect(poll({ status: 'Pending' })).toEqual({ kind: 'pending' });
    expect(poll({ status: 'Ready', result: { sample: 'https://s/1' } })).toEqual({
      kind: 'ready',
      sampleUrls: ['https://s/1'],
    });
    expect(poll({ status: 'Ready', result: {} })).toBeUndefined();
    expect(poll({ status: 'Content Moderated' })).toMatchObject({ kind: 'failed', refused: true });
    expect(poll({ status: 'Task not found' })).toMatchObject({ kind: 'failed', refused: false });
    expect(poll({})).toBeUndefined();
  });
});
