import { describe, expect, it } from 'vitest';

import { completionLine } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { decodePng, pixelsFor } from './png-bytes.ts';
import {
  bflPrice,
  createImage,
  getWithToken,
  openaiPrice,
  pollUntilFinished,
  startImageBed,
} from './image-test-bed.ts';

const credits = 10_000_000;

describe('POST /v1/images/generations', () => {
  const bed = useTestBed(() => startImageBed());
  const balance = async (accountId: string) =>
    (await bed.gateway.store.ledger.getBalance(accountId)).balance;

  it('answers 200 with the stored images of a synchronous provider and charges per image', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const response = await createImage(bed.gateway, token, 'sync-1', {
      model: 'picture-sync',
      prompt: 'a lighthouse',
      source: 'credits',
      aspect_ratio: '3:2',
      n: 2,
    });
    expect(response.statusCode).toBe(200);
    const generation = response.json();
    expect(generation.status).toBe('succeeded');
    expect(generation.images).toHaveLength(2);
    expect(generation.images[0].b64_json).toBeUndefined();
    expect(generation.usage).toEqual({ images: 2, credits: (2 * openaiPrice) / 1e6 });
    const sent = bed.fake.requests.at(-1);
    expect(sent?.headers.authorization).toBe('Bearer image-upstream-key');
    expect(sent?.body).toEqual({
      model: 'gpt-image-1',
      prompt: 'a lighthouse',
      n: 2,
      size: '1536x1024',
      quality: 'low',
      output_format: 'png',
    });
    const download = await getWithToken(bed.gateway, token, generation.images[1].download_path);
    expect(download.statusCode).toBe(200);
    expect(download.headers['content-type']).toBe('image/png');
    expect(download.rawPayload.equals(bed.fake.produced.at(-1) as Buffer)).toBe(true);
    expect(await balance(accountId)).toBe(credits - 2 * openaiPrice);
    // The files are no longer protected once the job finished (docs/api.md).
    const asset = await bed.gateway.storage.getAsset(accountId, generation.images[0].id);
    expect(asset?.protected).toBe(false);
    // The completion log line names the job and its charge.
    const line = completionLine(bed.gateway, response.headers['request-id']);
    expect(line).toMatchObject({
      model: 'picture-sync',
      jobId: generation.id,
      jobStatus: 'succeeded',
      costMicroCredits: 2 * openaiPrice,
    });
  });

  it('inlines base64 only when asked', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const response = await createImage(bed.gateway, token, 'b64-1', {
      model: 'picture-sync',
      prompt: 'inline me',
      source: 'credits',
      include_base64: true,
    });
    expect(response.statusCode).toBe(200);
    const [image] = response.json().images;
    expect(Buffer.from(image.b64_json, 'base64').equals(bed.fake.produced.at(-1) as Buffer)).toBe(
      true,
    );
  });

  it('asks for and stores JPEG when output_format is jpg', async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const response = await createImage(bed.gateway, token, 'jpg-1', {
      model: 'picture-sync',
      prompt: 'as jpeg',
      source: 'credits',
      output_format: 'jpg',
    });
    expect(response.statusCode).toBe(200);
    expect(bed.fake.requests.at(-1)?.body?.output_format).toBe('jpeg');
    const [image] = response.json().images;
    expect(image.content_type).toBe('image/jpeg');
    const download = await getWithToken(bed.gateway, token, image.download_path);
    expect(download.rawPayload.equals(bed.fake.produced.at(-1) as Buffer)).toBe(true);
  });

  it('answers 202 for a job-style provider, then the poll gives the image the upstream made', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    bed.fake.holdJobs = true;
    const response = await createImage(bed.gateway, token, 'job-1', {
      model: 'picture-job',
      prompt: 'a fox',
      source: 'credits',
      aspect_ratio: '16:9',
    });
    expect(response.statusCode).toBe(202);
    const job = response.json();
    expect(['queued', 'running']).toContain(job.status);
    expect(job.poll_path).toBe(`/v1/images/generations/${job.id}`);
    // The worst case is held while the job runs.
    expect((await bed.gateway.store.ledger.getBalance(accountId)).held).toBe(bflPrice);
    const submit = bed.fake.requests.find((request) => request.path === '/v1/flux-kontext-pro');
    expect(submit?.headers['x-key']).toBe('image-upstream-key');
    expect(submit?.body).toMatchObject({
      prompt: 'a fox',
      aspect_ratio: '16:9',
      output_format: 'png',
    });
    bed.fake.holdJobs = false;
    const finished = await pollUntilFinished(bed.gateway, token, job.id);
    expect(finished.statusCode).toBe(200);
    const done = finished.json();
    expect(done.status).toBe('succeeded');
    const download = await getWithToken(bed.gateway, token, done.images[0].download_path);
    const produced = bed.fake.produced.at(-1) as Buffer;
    expect(download.rawPayload.equals(produced)).toBe(true);
    const picture = decodePng(download.rawPayload);
    expect(picture.width).toBe(4);
    expect(picture.pixels.equals(pixelsFor(4, 3, bed.fake.produced.length))).toBe(true);
    expect(await balance(accountId)).toBe(credits - bflPrice);
    expect((await bed.gateway.store.ledger.getBalance(accountId)).held).toBe(0);
  });

  it('releases the hold when the upstream fails, and charges nothing', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    bed.fake.failures.push({ status: 500 });
    const response = await createImage(bed.gateway, token, 'fail-1', {
      model: 'picture-sync',
      prompt: 'fails',
      source: 'credits',
    });
    expect(response.statusCode).toBe(502);
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
    // A job-style failure after 202: the poll shows it failed, the hold is released.
    bed.fake.holdJobs = true;
    const accepted = await createImage(bed.gateway, token, 'fail-2', {
      model: 'picture-job',
      prompt: 'fails later',
      source: 'credits',
    });
    expect(accepted.statusCode).toBe(202);
    bed.fake.finalStatus = 'Error';
    bed.fake.holdJobs = false;
    const failed = await pollUntilFinished(bed.gateway, token, accepted.json().id);
    bed.fake.finalStatus = undefined;
    expect(failed.json()).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
  });

  it('answers 402 before any upstream call when the balance cannot cover the worst case', async () => {
    const { token } = await bed.gateway.createToken({
      credits: openaiPrice * 4 - 1,
      permissions: ['image:create'],
    });
    const before = bed.fake.requests.length;
    const response = await createImage(bed.gateway, token, 'poor-1', {
      model: 'picture-sync',
      prompt: 'too dear',
      source: 'credits',
      quality: 'high',
    });
    expect(response.statusCode).toBe(402);
    expect(bed.fake.requests.length).toBe(before);
  });

  it('keeps a token with allowed models to those models: listed, and refused before any call', async () => {
    const { token } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
      allowedModels: ['picture-job'],
    });
    const listed = await getWithToken(bed.gateway, token, '/v1/images/models?source=credits');
    expect(listed.json().data.map((model: { id: string }) => model.id)).toEqual(['picture-job']);
    const before = bed.fake.requests.length;
    const refused = await createImage(bed.gateway, token, 'not-allowed-1', {
      model: 'picture-sync',
      prompt: 'not mine',
      source: 'credits',
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe('model_not_allowed');
    expect(bed.fake.requests.length).toBe(before);
  });

  it('replays the same key and body without a second upstream call; another body is 409', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const body = { model: 'picture-sync', prompt: 'once', source: 'credits' };
    const first = await createImage(bed.gateway, token, 'replay-1', body);
    expect(first.statusCode).toBe(200);
    const calls = bed.fake.submits('openai');
    const again = await createImage(bed.gateway, token, 'replay-1', {
      ...body,
      output_format: 'png',
    });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().id).toBe(first.json().id);
    expect(again.json().images).toEqual(first.json().images);
    expect(bed.fake.submits('openai')).toBe(calls);
    const changed = await createImage(bed.gateway, token, 'replay-1', { ...body, prompt: 'twice' });
    expect(changed.statusCode).toBe(409);
    expect(bed.fake.submits('openai')).toBe(calls);
    expect(await balance(accountId)).toBe(credits - openaiPrice);
  });

  it('answers 410 image_result_deleted on poll and replay once every image is deleted', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const body = { model: 'picture-sync', prompt: 'short lived', source: 'credits', n: 2 };
    const first = await createImage(bed.gateway, token, 'gone-1', body);
    const generation = first.json();
    const calls = bed.fake.submits('openai');
    // One image deleted: the rest is still the result.
    await bed.gateway.app.inject({
      method: 'DELETE',
      url: `/v1/storage/assets/${generation.images[0].id}`,
      headers: { authorization: `Bearer ${token}` },
    });
    const partial = await getWithToken(bed.gateway, token, generation.poll_path);
    expect(partial.json().images).toHaveLength(1);
    await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/storage/cleanup',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ asset_ids: [generation.images[1].id], dry_run: false }),
    });
    const poll = await getWithToken(bed.gateway, token, generation.poll_path);
    expect(poll.statusCode).toBe(410);
    expect(poll.json().error.code).toBe('image_result_deleted');
    const replay = await createImage(bed.gateway, token, 'gone-1', body);
    expect(replay.statusCode).toBe(410);
    expect(replay.json().error.code).toBe('image_result_deleted');
    expect(bed.fake.submits('openai')).toBe(calls);
    expect(await balance(accountId)).toBe(credits - 2 * openaiPrice);
  });

  it("answers 404 for another account's job and files", async () => {
    const { token } = await bed.gateway.createToken({ credits, permissions: ['image:create'] });
    const { token: other } = await bed.gateway.createToken({
      credits,
      permissions: ['image:create'],
    });
    const generation = (
      await createImage(bed.gateway, token, 'mine-1', {
        model: 'picture-sync',
        prompt: 'mine',
        source: 'credits',
      })
    ).json();
    expect((await getWithToken(bed.gateway, other, generation.poll_path)).statusCode).toBe(404);
    const download = await getWithToken(bed.gateway, other, generation.images[0].download_path);
    expect(download.statusCode).toBe(404);
  });
});
