import type { LightMyRequestResponse } from 'fastify';

import type { BlobStore } from '../../src/features/storage/blob-store.ts';
import type { Store } from '../../src/store/store.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import { startFakeImageUpstream, type FakeImageUpstream } from './fake-image-upstream.ts';

/** Credits of one image of each test model, in micro-credits. */
export const openaiPrice = 40_000;
export const bflPrice = 60_000;

/** An images configuration with one sync model (`picture-sync`) and one job model (`picture-job`). */
export function imagesConfig(fakeUrl: string, overrides: Record<string, unknown> = {}) {
  return {
    providers: [
      { id: 'openai-fake', kind: 'openai-images', baseUrl: fakeUrl, apiKeyEnv: 'IMAGE_KEY' },
      { id: 'bfl-fake', kind: 'bfl', baseUrl: fakeUrl, apiKeyEnv: 'IMAGE_KEY', pollIntervalMs: 20 },
    ],
    models: [
      {
        id: 'picture-sync',
        deployments: [{ provider: 'openai-fake', upstreamModel: 'gpt-image-1' }],
        aspectRatios: ['auto', '1:1', '3:2'],
        qualities: ['low', 'high'],
        defaultQuality: 'low',
        maxImages: 4,
        prices: [
          { resolution: '1K', quality: 'low', perImage: openaiPrice / 1e6 },
          { resolution: '1K', quality: 'high', perImage: (openaiPrice * 4) / 1e6 },
        ],
      },
      {
        id: 'picture-job',
        deployments: [{ provider: 'bfl-fake', upstreamModel: 'flux-kontext-pro' }],
        aspectRatios: ['auto', '1:1', '16:9'],
        maxInputImages: 4,
        prices: [{ resolution: '1K', perImage: bflPrice / 1e6 }],
      },
    ],
    syncWaitMs: 2_000,
    ...overrides,
  };
}

export interface ImageBed {
  fake: FakeImageUpstream;
  gateway: TestGateway;
  close(): Promise<void>;
}

export async function startImageBed(
  options: {
    images?: Record<string, unknown>;
    /** More top-level configuration, e.g. `server`. */
    config?: Record<string, unknown>;
    store?: Store;
    fake?: FakeImageUpstream;
    blobs?: BlobStore;
    storage?: Record<string, unknown>;
  } = {},
): Promise<ImageBed> {
  const fake = options.fake ?? (await startFakeImageUpstream());
  const gateway = await startTestGateway(
    {
      ...options.config,
      images: imagesConfig(fake.url, options.images),
      ...(options.storage === undefined ? {} : { storage: options.storage }),
    },
    {
      env: { IMAGE_KEY: 'image-upstream-key' },
      ...(options.store ? { store: options.store } : {}),
      ...(options.blobs ? { blobs: options.blobs } : {}),
    },
  );
  return {
    fake,
    gateway,
    async close() {
      await gateway.close();
      if (options.fake === undefined) await fake.close();
    },
  };
}

export function createImage(
  gateway: TestGateway,
  token: string,
  key: string | undefined,
  body: unknown,
): Promise<LightMyRequestResponse> {
  return gateway.app.inject({
    method: 'POST',
    url: '/v1/images/generations',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    payload: JSON.stringify(body),
  });
}

export function getWithToken(
  gateway: TestGateway,
  token: string,
  url: string,
): Promise<LightMyRequestResponse> {
  return gateway.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

/** Polls a job as clients do, until it answers other than 202 (or `attempts` polls pass). */
export async function pollUntilFinished(
  gateway: TestGateway,
  token: string,
  jobId: string,
  attempts = 200,
): Promise<LightMyRequestResponse> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    const poll = await getWithToken(gateway, token, `/v1/images/generations/${jobId}`);
    if (poll.statusCode !== 202) return poll;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`job ${jobId} did not finish`);
}
