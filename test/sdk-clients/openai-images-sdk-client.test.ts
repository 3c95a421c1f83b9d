import { createOpenAI } from '@ai-sdk/openai';
import { experimental_generateImage as generateImage } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';

import { startFakeImageUpstream } from '../images/fake-image-upstream.ts';
import { imagesConfig, openaiPrice, startImageBed } from '../images/image-test-bed.ts';
import { useTestBed } from '../support/use-test-bed.ts';

const credits = 10_000_000;

/**
 * docs/decisions/0115, 0116: the official SDKs read an image answer in OpenAI's shape and send
 * no `source`; with only the Idempotency-Key header added they generate through the gateway.
 */
describe('the official SDKs against POST /v1/images/generations', () => {
  const bed = useTestBed(async () => {
    const fake = await startFakeImageUpstream();
    // The AI SDK sends `response_format` only for model ids not starting `gpt-image-`.
    const gptImage = {
      id: 'gpt-image-1',
      deployments: [{ provider: 'openai-fake', upstreamModel: 'gpt-image-1' }],
      aspectRatios: ['auto', '1:1'],
      prices: [{ resolution: '1K', perImage: openaiPrice / 1e6 }],
    };
    const started = await startImageBed({
      fake,
      images: { models: [...imagesConfig(fake.url).models, gptImage] },
    });
    await started.gateway.app.listen({ host: '127.0.0.1', port: 0 });
    return {
      ...started,
      async close() {
        await started.close();
        await fake.close();
      },
    };
  });
  const origin = () => {
    const address = bed.gateway.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return `http://127.0.0.1:${address.port}`;
  };

  it('openai images.generate gets the image bytes in data[].b64_json, with size and n mapped', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const client = new OpenAI({ apiKey: token, baseURL: `${origin()}/v1`, maxRetries: 0 });
    const answer = await client.images.generate(
      { model: 'picture-sync', prompt: 'a lighthouse', size: '1536x1024', n: 2 },
      { headers: { 'Idempotency-Key': 'openai-sdk-1' } },
    );
    expect(answer.created).toBeGreaterThan(1_700_000_000);
    expect(answer.data).toHaveLength(2);
    const produced = bed.fake.produced.slice(-2);
    answer.data?.forEach((image, index) => {
      expect(Buffer.from(image.b64_json ?? '', 'base64').equals(produced[index] as Buffer)).toBe(
        true,
      );
    });
    expect(bed.fake.requests.at(-1)?.body).toMatchObject({ size: '1536x1024', n: 2 });
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(
      credits - 2 * openaiPrice,
    );
  });

  it('openai images.generate with response_format url gets download URLs for the same token', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const client = new OpenAI({ apiKey: token, baseURL: `${origin()}/v1`, maxRetries: 0 });
    const answer = await client.images.generate(
      { model: 'picture-sync', prompt: 'a link', response_format: 'url' },
      { headers: { 'Idempotency-Key': 'openai-sdk-url-1' } },
    );
    const [image] = answer.data ?? [];
    expect(image?.b64_json).toBeUndefined();
    expect(image?.url).toMatch(/^\/v1\/storage\/assets\/asset_[0-9a-f]{32}\/content$/);
    const download = await bed.gateway.app.inject({
      method: 'GET',
      url: image?.url ?? '',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(download.rawPayload.equals(bed.fake.produced.at(-1) as Buffer)).toBe(true);
  });

  it('openai images.generate with a size the model cannot make exactly is a 400', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const client = new OpenAI({ apiKey: token, baseURL: `${origin()}/v1`, maxRetries: 0 });
    const before = bed.fake.requests.length;
    const refused = await client.images
      .generate(
        { model: 'picture-sync', prompt: 'too tall', size: '1024x1536' },
        { headers: { 'Idempotency-Key': 'openai-sdk-size-1' } },
      )
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('size');
    expect(bed.fake.requests.length).toBe(before);
  });

  it('AI SDK experimental_generateImage on a gpt-image model id (no response_format sent)', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const provider = createOpenAI({ baseURL: `${origin()}/v1`, apiKey: token });
    const result = await generateImage({
      model: provider.image('gpt-image-1'),
      prompt: 'a heron',
      headers: { 'Idempotency-Key': 'ai-sdk-gpt-image-1' },
      maxRetries: 0,
    });
    expect(Buffer.from(result.image.uint8Array).equals(bed.fake.produced.at(-1) as Buffer)).toBe(
      true,
    );
  });

  it('AI SDK experimental_generateImage gets the image the upstream made', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const provider = createOpenAI({ baseURL: `${origin()}/v1`, apiKey: token });
    const result = await generateImage({
      model: provider.image('picture-sync'),
      prompt: 'a fox',
      size: '1024x1024',
      headers: { 'Idempotency-Key': 'ai-sdk-1' },
      maxRetries: 0,
    });
    expect(result.images).toHaveLength(1);
    expect(Buffer.from(result.image.uint8Array).equals(bed.fake.produced.at(-1) as Buffer)).toBe(
      true,
    );
    expect(result.image.mediaType).toBe('image/png');
    expect(bed.fake.requests.at(-1)?.body).toMatchObject({ size: '1024x1024', n: 1 });
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(
      credits - openaiPrice,
    );
  });
});
