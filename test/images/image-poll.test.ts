import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { createImage, getWithToken, pollUntilFinished, startImageBed } from './image-test-bed.ts';

const credits = 10_000_000;

describe('GET /v1/images/generations/{job_id} (docs/images.md, Answers)', () => {
  const bed = useTestBed(() => startImageBed());

  const startHeldJob = async (key: string) => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    bed.fake.holdJobs = true;
    const accepted = await createImage(bed.gateway, token, key, {
      model: 'picture-job',
      prompt: 'a slow fox',
      source: 'credits',
    });
    expect(accepted.statusCode).toBe(202);
    return { token, jobId: (accepted.json() as { id: string }).id };
  };

  it('answers 202 while a job is queued or running, and 200 once it succeeded or failed', async () => {
    const { token, jobId } = await startHeldJob('poll-202-1');
    const path = `/v1/images/generations/${jobId}`;
    const waiting = await getWithToken(bed.gateway, token, path);
    expect(waiting.statusCode).toBe(202);
    expect(['queued', 'running']).toContain(waiting.json().status);
    expect(waiting.json()).toMatchObject({ id: jobId, poll_path: path, finished_at: null });
    bed.fake.holdJobs = false;
    const finished = await pollUntilFinished(bed.gateway, token, jobId);
    expect(finished.statusCode).toBe(200);
    expect(finished.json()).toMatchObject({ id: jobId, status: 'succeeded' });
    expect(finished.json().images).toHaveLength(1);

    // A failed job is finished too: 200 with its error, not the upstream's status.
    const failing = await startHeldJob('poll-failed-1');
    bed.fake.finalStatus = 'Error';
    bed.fake.holdJobs = false;
    try {
      const failed = await pollUntilFinished(bed.gateway, failing.token, failing.jobId);
      expect(failed.statusCode).toBe(200);
      expect(failed.json()).toMatchObject({
        status: 'failed',
        error: { code: 'upstream_error', message: expect.any(String) },
      });
    } finally {
      bed.fake.finalStatus = undefined;
    }
  });

  it('takes ?include_base64=true or false, and refuses any other value with a 400 naming it', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const created = await createImage(bed.gateway, token, 'poll-b64-1', {
      model: 'picture-sync',
      prompt: 'a lighthouse',
      source: 'credits',
    });
    expect(created.statusCode).toBe(200);
    const path = `/v1/images/generations/${created.json().id as string}`;
    const produced = bed.fake.produced.at(-1) as Buffer;

    const inlined = await getWithToken(bed.gateway, token, `${path}?include_base64=true`);
    expect(inlined.statusCode).toBe(200);
    expect(Buffer.from(inlined.json().images[0].b64_json, 'base64').equals(produced)).toBe(true);

    const plain = await getWithToken(bed.gateway, token, `${path}?include_base64=false`);
    expect(plain.statusCode).toBe(200);
    expect(plain.json().images[0].b64_json).toBeUndefined();

    for (const value of ['yes', '1', 'TRUE', '']) {
      const refused = await getWithToken(bed.gateway, token, `${path}?include_base64=${value}`);
      expect(refused.statusCode, value).toBe(400);
      expect(refused.json().error.message, value).toMatch(/include_base64.*true.*false/);
    }
  });
});
