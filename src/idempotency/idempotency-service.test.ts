import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ApiError } from '../canonical/generation-error.ts';
import { createTestAccount, uniqueId } from '../../test/contract/store-contract-fixtures.ts';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { IdempotencyService, type IdempotentOperation } from './idempotency-service.ts';
import type { StoredAnswer } from './idempotency-store.ts';

const operation: IdempotentOperation = { name: 'test', windowMs: 60_000, claimMs: 10_000 };
const ok: StoredAnswer = {
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: '{"b":1,"a":2}',
};

describe('IdempotencyService', () => {
  let store: Store;
  let clock = 1_800_000_000_000;
  let service: IdempotencyService;
  beforeAll(async () => {
    store = await openSqliteStore({ path: ':memory:' });
    service = new IdempotencyService({ store: store.idempotency, now: () => clock });
  });
  afterAll(async () => store.close());

  async function newRequest(fingerprint = 'fp') {
    const account = await createTestAccount(store);
    return { accountId: account.id, operation, key: uniqueId('key'), fingerprint };
  }

  function counting(answer: StoredAnswer | (() => Promise<StoredAnswer>)) {
    const work = async () => {
      work.calls += 1;
      return typeof answer === 'function' ? answer() : answer;
    };
    work.calls = 0;
    return work;
  }

  it('runs once and replays the stored answer within the window', async () => {
    const request = await newRequest();
    const work = counting(ok);
    expect(await service.run(request, work)).toEqual({ answer: ok, replayed: false });
    clock += operation.windowMs - 1;
    expect(await service.run(request, work)).toEqual({ answer: ok, replayed: true });
    expect(work.calls).toBe(1);
    clock += 1;
    expect((await service.run(request, work)).replayed).toBe(false);
    expect(work.calls).toBe(2);
  });

  it('refuses the key with a different request, finished or running', async () => {
    const request = await newRequest();
    await service.run(request, counting(ok));
    await expect(
      service.run({ ...request, fingerprint: 'other' }, counting(ok)),
    ).rejects.toMatchObject({ code: 'idempotency_key_reused', status: 409 });

    const running = await newRequest();
    let finish: (answer: StoredAnswer) => void = () => {};
    const first = service.run(running, () => new Promise((resolve) => (finish = resolve)));
    await new Promise((resolve) => setTimeout(resolve, 10));
    await expect(
      service.run({ ...running, fingerprint: 'other' }, counting(ok)),
    ).rejects.toMatchObject({ code: 'idempotency_key_reused' });
    await expect(service.run(running, counting(ok))).rejects.toMatchObject({
      code: 'idempotency_in_progress',
      status: 409,
      retryAfter: 1,
    });
    finish(ok);
    expect(await first).toEqual({ answer: ok, replayed: false });
    expect(await service.run(running, counting(ok))).toEqual({ answer: ok, replayed: true });
  });

  it('does not keep transient failures, so a retry runs', async () => {
    const request = await newRequest();
    const failing = counting(async () => {
      throw new ApiError('upstream_error');
    });
    await expect(service.run(request, failing)).rejects.toMatchObject({ status: 502 });
    const serverError = counting({ ...ok, status: 500 });
    expect((await service.run(request, serverError)).answer.status).toBe(500);
    const limited = counting(async () => {
      throw new ApiError('rate_limited', undefined, { retryAfter: 3 });
    });
    await expect(service.run(request, limited)).rejects.toMatchObject({ status: 429 });
    const crash = counting(async () => {
      throw new Error('bug');
    });
    await expect(service.run(request, crash)).rejects.toThrow('bug');
    const work = counting(ok);
    expect(await service.run(request, work)).toEqual({ answer: ok, replayed: false });
    expect(work.calls).toBe(1);
  });

  it('keeps a final client error in shape A and replays it', async () => {
    const request = await newRequest();
    const refused = counting(async () => {
      throw new ApiError('invalid_request', 'The state is too large for the judge.');
    });
    const first = await service.run(request, refused);
    expect(first.answer.status).toBe(400);
    expect(JSON.parse(first.answer.body)).toEqual({
      error: {
        type: 'invalid_request_error',
        message: 'The state is too large for the judge.',
        code: 'invalid_request',
      },
    });
    expect(await service.run(request, refused)).toEqual({ answer: first.answer, replayed: true });
    expect(refused.calls).toBe(1);
  });
});
