import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { startFakeImageUpstream } from './fake-image-upstream.ts';
import { createImage, imagesConfig, pollUntilFinished, startImageBed } from './image-test-bed.ts';

const credits = 10_000_000;
const unsetVariable = 'SWITCHYARD_TEST_IMAGE_KEY_NOBODY_SET';

/**
 * docs/decisions/0111: an image provider configured wrongly is the gateway's mistake (502), told
 * to the operator in one line naming the provider, the path called and the cause; what the
 * upstream refused of the client's request stays the client's.
 */
describe('image providers configured wrongly', () => {
  const bed = useTestBed(async () => {
    delete process.env[unsetVariable];
    const fake = await startFakeImageUpstream();
    const { providers, models } = imagesConfig(fake.url);
    const started = await startImageBed({
      fake,
      images: {
        providers: [
          ...providers,
          { id: 'openai-doubled', kind: 'openai-images', baseUrl: `${fake.url}/v1` },
          { id: 'bfl-doubled', kind: 'bfl', baseUrl: `${fake.url}/v1`, pollIntervalMs: 20 },
          { id: 'bfl-keyless', kind: 'bfl', baseUrl: fake.url, apiKeyEnv: unsetVariable },
        ],
        models: [
          ...models,
          {
            id: 'picture-doubled',
            deployments: [{ provider: 'openai-doubled', upstreamModel: 'gpt-image-1' }],
            prices: [{ resolution: '1K', perImage: 0.04 }],
          },
          {
            id: 'flux-doubled',
            deployments: [{ provider: 'bfl-doubled', upstreamModel: 'flux-kontext-pro' }],
            prices: [{ resolution: '1K', perImage: 0.06 }],
          },
          {
            id: 'flux-keyless',
            deployments: [{ provider: 'bfl-keyless', upstreamModel: 'flux-kontext-pro' }],
            prices: [{ resolution: '1K', perImage: 0.06 }],
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

  /** The log lines written about one job. */
  const jobLines = (jobId: unknown) =>
    bed.gateway.logs
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .filter((entry) => entry.jobId === jobId && entry.msg !== 'request completed');

  /** The job of the latest upstream failure logged: a failed create call names no job. */
  const lastJobId = () =>
    bed.gateway.logs
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .filter((entry) => typeof entry.jobId === 'string' && entry.msg === 'upstream call failed')
      .at(-1)?.jobId;

  it('answers a 404 from a baseUrl ending in /v1 with 502, logging provider, path and cause once', async () => {
    for (const [model, provider, upstreamPath] of [
      ['picture-doubled', 'openai-doubled', '/v1/v1/images/generations'],
      ['flux-doubled', 'bfl-doubled', '/v1/v1/flux-kontext-pro'],
    ]) {
      const { token, accountId } = await bed.gateway.createToken({
        credits,
        permissions: ['image:create'],
      });
      const response = await createImage(bed.gateway, token, `doubled-${model}`, {
        model,
        prompt: 'a lighthouse',
        source: 'credits',
      });
      expect(response.statusCode, model).toBe(502);
      expect(response.json().error.code).toBe('upstream_error');
      expect(response.json().error.message).not.toContain('Upstream rejected the request');
      const lines = jobLines(lastJobId());
      expect(lines, model).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 40,
        msg: 'upstream call failed',
        model,
        provider,
        upstreamStatus: 404,
        upstreamPath,
      });
      expect(lines[0]?.cause).toContain('baseUrl');
      expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
        balance: credits,
        held: 0,
      });
    }
  });

  it('names the unset key variable as the cause of a refused call, never to the client', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    bed.fake.failures.push({ status: 401, body: { detail: 'Not authenticated' } });
    const response = await createImage(bed.gateway, token, 'keyless-1', {
      model: 'flux-keyless',
      prompt: 'a lighthouse',
      source: 'credits',
    });
    expect(response.statusCode).toBe(502);
    expect(response.body).not.toContain(unsetVariable);
    const [line, ...more] = jobLines(lastJobId());
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 40, provider: 'bfl-keyless', upstreamStatus: 401 });
    expect(line?.cause).toContain(unsetVariable);
    expect(line?.err).toBeUndefined();
  });

  it('keeps 400 for a prompt the provider refused, logged at info, and 429 with its retry-after', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    bed.fake.failures.push({
      status: 400,
      body: { error: { message: 'Your request was rejected by the safety system.' } },
    });
    const refused = await createImage(bed.gateway, token, 'refused-1', {
      model: 'picture-sync',
      prompt: 'something refused',
      source: 'credits',
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.code).toBe('invalid_request');
    expect(jobLines(lastJobId())).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'upstream call failed',
        provider: 'openai-fake',
        upstreamStatus: 400,
        upstreamPath: '/v1/images/generations',
      }),
    ]);
    bed.fake.failures.push({ status: 429, headers: { 'retry-after': '9' } });
    const limited = await createImage(bed.gateway, token, 'limited-1', {
      model: 'picture-sync',
      prompt: 'busy',
      source: 'credits',
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('9');
  });

  it('logs a job that fails after its create call answered 202, for nobody else will', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    bed.fake.holdJobs = true;
    const created = await createImage(bed.gateway, token, 'late-1', {
      model: 'picture-job',
      prompt: 'slow',
      source: 'credits',
    });
    expect(created.statusCode).toBe(202);
    const jobId = created.json().id as string;
    bed.fake.holdJobs = false;
    bed.fake.finalStatus = 'Error';
    try {
      const finished = await pollUntilFinished(bed.gateway, token, jobId);
      expect(finished.json().status).toBe('failed');
    } finally {
      bed.fake.finalStatus = undefined;
    }
    expect(jobLines(jobId)).toEqual([
      expect.objectContaining({ level: 40, msg: 'image job failed', model: 'picture-job' }),
    ]);
  });
});
