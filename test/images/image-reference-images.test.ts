import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { startFakeImageUpstream, type ReceivedFile } from './fake-image-upstream.ts';
import { createImage, getWithToken, imagesConfig, startImageBed } from './image-test-bed.ts';
import { encodePng, pixelsFor } from './png-bytes.ts';

const credits = 10_000_000;

/** Eight different reference images, as a client sends them. */
const references = Array.from({ length: 8 }, (_, index) => {
  const bytes = encodePng(3, 2, pixelsFor(3, 2, 100 + index));
  return { name: `ref-${index + 1}.png`, media_type: 'image/png', bytes };
});
const sent = references.map(({ bytes, ...image }) => ({
  ...image,
  data: bytes.toString('base64'),
}));

/** The contract's eight reference images reach both provider kinds (docs/images.md). */
describe('eight reference images', () => {
  const bed = useTestBed(async () => {
    const fake = await startFakeImageUpstream();
    const base = imagesConfig(fake.url);
    const started = await startImageBed({
      fake,
      images: {
        models: [
          ...base.models,
          {
            id: 'picture-edit',
            deployments: [{ provider: 'openai-fake', upstreamModel: 'gpt-image-1' }],
            aspectRatios: ['auto', '1:1'],
            maxInputImages: 8,
            prices: [{ resolution: '1K', perImage: 0.05 }],
          },
          {
            id: 'picture-job-8',
            deployments: [{ provider: 'bfl-fake', upstreamModel: 'flux-2-pro' }],
            maxInputImages: 8,
            prices: [{ resolution: '1K', perImage: 0.03 }],
          },
        ],
      },
    });
    return {
      ...started,
      async close() {
        await started.close();
        await fake.close();
      },
    };
  });

  it('go to OpenAI’s edits endpoint as eight image[] files with the other fields', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const response = await createImage(bed.gateway, token, 'edit-8', {
      model: 'picture-edit',
      prompt: 'combine them',
      source: 'credits',
      aspect_ratio: '1:1',
      input_images: sent,
    });
    expect(response.statusCode, response.body).toBe(200);
    const request = bed.fake.requests.at(-1);
    expect(request?.path).toBe('/v1/images/edits');
    expect(request?.headers.authorization).toBe('Bearer image-upstream-key');
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const { 'image[]': files, ...fields } = request?.body ?? {};
    expect(fields).toEqual({
      model: 'gpt-image-1',
      prompt: 'combine them',
      n: '1',
      size: '1024x1024',
      output_format: 'png',
    });
    expect(
      (files as ReceivedFile[]).map((file) => ({
        filename: file.filename,
        type: file.type,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
      })),
    ).toEqual(
      references.map((image) => ({
        filename: image.name,
        type: 'image/png',
        sha256: createHash('sha256').update(image.bytes).digest('hex'),
      })),
    );
    const [image] = response.json().images;
    const download = await getWithToken(bed.gateway, token, image.download_path);
    expect(download.rawPayload.equals(bed.fake.produced.at(-1) as Buffer)).toBe(true);
  });

  it('go to BFL as input_image … input_image_8, and the model is listed with 8', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const listed = await getWithToken(bed.gateway, token, '/v1/images/models?source=credits');
    const model = listed.json().data.find((entry: { id: string }) => entry.id === 'picture-job-8');
    expect(model.max_input_images).toBe(8);
    const response = await createImage(bed.gateway, token, 'bfl-8', {
      model: 'picture-job-8',
      prompt: 'combine them',
      source: 'credits',
      input_images: sent,
    });
    expect([200, 202]).toContain(response.statusCode);
    const submit = bed.fake.requests.find((request) => request.path === '/v1/flux-2-pro');
    const expected = Object.fromEntries(
      references.map((image, index) => [
        index === 0 ? 'input_image' : `input_image_${index + 1}`,
        image.bytes.toString('base64'),
      ]),
    );
    expect(submit?.body).toEqual({ prompt: 'combine them', output_format: 'png', ...expected });
  });

  it('refuses a ninth with 400 before anything is sent', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const before = bed.fake.requests.length;
    const response = await createImage(bed.gateway, token, 'nine', {
      model: 'picture-edit',
      prompt: 'too many',
      source: 'credits',
      input_images: [...sent, sent[0]],
    });
    expect(response.statusCode).toBe(400);
    expect(bed.fake.requests.length).toBe(before);
  });
});
