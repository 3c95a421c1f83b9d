import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import type { FakeReply, RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import {
  answerEverySlot,
  evaluationHeaders,
  postEvaluation,
  startEvaluationBed,
  type EvaluationBed,
} from './evaluation-test-bed.ts';
import { formatCredits } from '../../src/billing/micro-credits.ts';

const credits = 10_000_000;
const body = {
  state: 'The agent closed the ticket.',
  questions: {
    closed: { type: 'boolean', instructions: 'Was the ticket closed?' },
    tone: { type: 'choice', instructions: 'Tone?', criteria: { calm: 'calm', tense: 'tense' } },
  },
};
// The same request with its members in another order (RFC 8785 fingerprint).
const reordered = {
  questions: {
    tone: { criteria: { tense: 'tense', calm: 'calm' }, instructions: 'Tone?', type: 'choice' },
    closed: { instructions: 'Was the ticket closed?', type: 'boolean' },
  },
  state: 'The agent closed the ticket.',
};

const minute = 60_000;

describe('POST /v4/ai/evaluation-model: replay, changed requests and the window', () => {
  let bed: EvaluationBed;
  beforeAll(async () => {
    bed = await startEvaluationBed();
  });
  afterAll(async () => bed.close());
  beforeEach(() => bed.upstream.reset());

  const balanceOf = async (accountId: string) =>
    (await bed.gateway.store.ledger.getBalance(accountId)).balance;

  it('replays the identical answer within 15 minutes with no upstream call and no charge', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const headers = evaluationHeaders(token);
    bed.upstream.enqueue(answerEverySlot, answerEverySlot);
    const first = await postEvaluation(bed.gateway, headers, body);
    expect(first.statusCode).toBe(200);
    const charged = await balanceOf(accountId);
    expect(charged).toBeLessThan(credits);

    bed.clock.now += 15 * minute - 1_000;
    const replay = await postEvaluation(bed.gateway, headers, reordered);
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect(replay.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(bed.upstream.requests).toHaveLength(1);
    expect(await balanceOf(accountId)).toBe(charged);
    // The first answer told its charge; the replay, charged nothing, tells none.
    expect(first.headers['x-switchyard-cost']).toBe(formatCredits(credits - charged));
    expect(replay.headers['x-switchyard-cost']).toBeUndefined();
    expect(replay.headers['x-switchyard-balance']).toBeUndefined();
  });

  it('answers 409 in shape A to the same key with a changed request', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const headers = evaluationHeaders(token);
    bed.upstream.enqueue(answerEverySlot);
    expect((await postEvaluation(bed.gateway, headers, body)).statusCode).toBe(200);
    const charged = await balanceOf(accountId);
    const changed = await postEvaluation(bed.gateway, headers, { ...body, state: 'Reopened.' });
    expect(changed.statusCode).toBe(409);
    expect(changed.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'idempotency_key_reused',
        message: expect.stringContaining(headers['idempotency-key'] as string),
      },
    });
    expect(bed.upstream.requests).toHaveLength(1);
    expect(await balanceOf(accountId)).toBe(charged);
  });

  it('keeps keys apart per account', async () => {
    const first = await bed.gateway.createToken({ credits });
    const second = await bed.gateway.createToken({ credits });
    const key = 'shared-key';
    bed.upstream.enqueue(answerEverySlot, answerEverySlot);
    const headers = (token: string) => evaluationHeaders(token, { 'idempotency-key': key });
    expect((await postEvaluation(bed.gateway, headers(first.token), body)).statusCode).toBe(200);
    const other = await postEvaluation(bed.gateway, headers(second.token), body);
    expect(other.statusCode).toBe(200);
    expect(other.headers['idempotent-replayed']).toBeUndefined();
    expect(bed.upstream.requests).toHaveLength(2);
  });

  it('runs again, and charges again, once the window has passed', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const headers = evaluationHeaders(token);
    bed.upstream.enqueue(answerEverySlot, answerEverySlot);
    await postEvaluation(bed.gateway, headers, body);
    const charged = credits - (await balanceOf(accountId));
    bed.clock.now += 15 * minute;
    const again = await postEvaluation(bed.gateway, headers, body);
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(bed.upstream.requests).toHaveLength(2);
    expect(await balanceOf(accountId)).toBe(credits - 2 * charged);
  });

  it('runs 20 concurrent identical requests once: one upstream call, one charge', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const headers = evaluationHeaders(token);
    const slow = (request: RecordedRequest): FakeReply => ({
      ...answerEverySlot(request),
      delayMs: 300,
    });
    for (let index = 0; index < 20; index += 1) bed.upstream.enqueue(slow);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => postEvaluation(bed.gateway, headers, body)),
    );
    expect(bed.upstream.requests).toHaveLength(1);
    const ok = responses.filter((response) => response.statusCode === 200);
    const busy = responses.filter((response) => response.statusCode === 409);
    expect(ok.length + busy.length).toBe(20);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const response of busy) {
      expect(response.json().error.code).toBe('idempotency_in_progress');
      expect(response.headers['retry-after']).toBe('1');
    }
    const [record, ...others] = await bed.gateway.store.usage.listUsage(accountId, 10);
    expect(others).toHaveLength(0);
    expect(await balanceOf(accountId)).toBe(credits - (record?.cost ?? 0));
    // Once the first has finished, the duplicates replay it.
    const later = await postEvaluation(bed.gateway, headers, body);
    expect(later.headers['idempotent-replayed']).toBe('true');
    expect(later.rawPayload.equals(ok[0]!.rawPayload)).toBe(true);
  });

  it('does not keep an upstream failure: a retry with the same key runs and succeeds', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const headers = evaluationHeaders(token);
    bed.upstream.enqueue({ status: 500 });
    const failed = await postEvaluation(bed.gateway, headers, body);
    expect(failed.statusCode).toBe(502);
    expect(await balanceOf(accountId)).toBe(credits);
    // The client waits the retry-after it was given: until then the router keeps the key out.
    bed.clock.now += 7_000;
    bed.upstream.enqueue(answerEverySlot);
    const retried = await postEvaluation(bed.gateway, headers, body);
    expect(retried.statusCode).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('passes an upstream 429 on with its retry-after and keeps the key free for the retry', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const headers = evaluationHeaders(token);
    bed.upstream.enqueue({ status: 429, headers: { 'retry-after': '7' } });
    const limited = await postEvaluation(bed.gateway, headers, body);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('7');
    expect(limited.json().error.code).toBe('upstream_rate_limited');
    expect(await balanceOf(accountId)).toBe(credits);
    // The client waits the retry-after it was given: until then the router keeps the key out.
    bed.clock.now += 7_000;
    bed.upstream.enqueue(answerEverySlot);
    const retried = await postEvaluation(bed.gateway, headers, body);
    expect(retried.statusCode).toBe(200);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
  });

  it('keeps a final 4xx answer and replays it without calling the judge again', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const headers = evaluationHeaders(token);
    bed.upstream.enqueue({ status: 400, errorMessage: 'tool schema rejected' }, answerEverySlot);
    const first = await postEvaluation(bed.gateway, headers, body);
    expect(first.statusCode).toBe(400);
    expect(first.json().error.message).toContain('tool schema rejected');
    const replay = await postEvaluation(bed.gateway, headers, body);
    expect(replay.statusCode).toBe(400);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(bed.upstream.requests).toHaveLength(1);
  });
});
