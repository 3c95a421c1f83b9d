import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ApiError } from '../canonical/generation-error.ts';
import { createTestAccount, uniqueId } from '../../test/contract/store-contract-fixtures.ts';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.ts';
import type { Store } from '../store/store.ts';
import { IdempotencyService, type IdempotentOperation } from './idempotency-service.ts';
import type { StoredAnswer } from './idempotency-store.ts';
import { hashIdempotencyKey } from './hash-idempotency-key.ts';
import { generateClientToken } from '../auth/client-token.ts';

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
  const replays: string[] = [];
  beforeAll(async () => {
    store = await openSqliteStore({ path: ':memory:' });
    service = new IdempotencyService({
      store: store.idempotency,
      now: () => clock,
      onReplay: (name) => replays.push(name),
    });
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
    const replayedBefore = replays.length;
    expect(await service.run(request, work)).toEqual({ answer: ok, replayed: false });
    clock += operation.windowMs - 1;
    expect(await service.run(request, work)).toEqual({ answer: ok, replayed: true });
    expect(work.calls).toBe(1);
    clock += 1;
    expect((await service.run(request, work)).replayed).toBe(false);
    expect(work.calls).toBe(2);
    // Only the replay is told, by its operation's name (switchyard_idempotency_replays_total).
    expect(replays.slice(replayedBefore)).toEqual(['test']);
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
      // Its holder renewed it within the last beat: alive, and may answer any moment.
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

describe('IdempotencyService claims and keys', () => {
  let folder: string;
  let file: string;
  let store: Store;
  beforeAll(async () => {
    folder = await mkdtemp(path.join(tmpdir(), 'switchyard-idempotency-'));
    file = path.join(folder, 'store.db');
    store = await openSqliteStore({ path: file });
  });
  afterAll(async () => {
    await store.close();
    await rm(folder, { recursive: true, force: true });
  });

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('keeps a running claim alive past its lease, and frees a dead holder within one lease', async () => {
    const service = new IdempotencyService({
      store: store.idempotency,
      now: Date.now,
      claimLeaseMs: 300,
      heartbeatMs: 100,
    });
    const account = await createTestAccount(store);
    const request = { accountId: account.id, operation, key: uniqueId('key'), fingerprint: 'fp' };
    let runs = 0;
    const slow = async () => {
      runs += 1;
      await sleep(900);
      return ok;
    };
    const first = service.run(request, slow);
    await sleep(600);
    // Twice the lease has passed: only the heartbeat keeps the key from a second run.
    await expect(service.run(request, slow)).rejects.toMatchObject({
      code: 'idempotency_in_progress',
    });
    await first;
    expect(runs).toBe(1);

    // A claim whose process is gone: written with nobody to renew it.
    const orphan = { ...request, key: uniqueId('key') };
    const scope = {
      accountId: account.id,
      operation: operation.name,
      key: hashIdempotencyKey(orphan.key),
    };
    const claimedAt = Date.now();
    await store.idempotency.claim(scope, {
      fingerprint: 'fp',
      claimId: 'dead-process',
      now: claimedAt,
      claimExpiresAt: claimedAt + 300,
    });
    await expect(service.run(orphan, async () => ok)).rejects.toMatchObject({
      code: 'idempotency_in_progress',
      retryAfter: 1,
    });
    await sleep(350);
    expect(await service.run(orphan, async () => ok)).toEqual({ answer: ok, replayed: false });
  });

  it('answers retry-after 1 while the holder renews, and the time left once it missed a beat', async () => {
    let now = 1_900_000_000_000;
    const service = new IdempotencyService({ store: store.idempotency, now: () => now });
    const account = await createTestAccount(store);
    const key = uniqueId('key');
    const scope = {
      accountId: account.id,
      operation: operation.name,
      key: hashIdempotencyKey(key),
    };
    // Written by a process that renewed it 7 s ago (two beats of 5 s ago would be 10 s).
    await store.idempotency.claim(scope, {
      fingerprint: 'fp',
      claimId: 'quiet-process',
      now,
      claimExpiresAt: now + 8_000,
    });
    const duplicate = { accountId: account.id, operation, key, fingerprint: 'fp' };
    await expect(service.run(duplicate, async () => ok)).rejects.toMatchObject({
      code: 'idempotency_in_progress',
      retryAfter: 8,
    });
    now += 7_500;
    await expect(service.run(duplicate, async () => ok)).rejects.toMatchObject({ retryAfter: 1 });
    now += 500;
    expect((await service.run(duplicate, async () => ok)).replayed).toBe(false);
  });

  it('stores a hash of the key, never the key', async () => {
    const service = new IdempotencyService({ store: store.idempotency, now: Date.now });
    const account = await createTestAccount(store);
    const key = `secret-looking-key-${uniqueId('k')}`;
    await service.run({ accountId: account.id, operation, key, fingerprint: 'fp' }, async () => ok);
    const raw = new BetterSqlite3(file, { readonly: true });
    try {
      const rows = raw
        .prepare('select * from idempotency_entries where account_id = ?')
        .all(account.id) as Array<Record<string, unknown>>;
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(key);
      expect(rows[0]?.key).toBe(hashIdempotencyKey(key));
    } finally {
      raw.close();
    }
  });

  it('refuses a client token sent as the key, before anything is claimed', async () => {
    const service = new IdempotencyService({ store: store.idempotency, now: Date.now });
    const account = await createTestAccount(store);
    const work = async () => ok;
    await expect(
      service.run(
        { accountId: account.id, operation, key: generateClientToken().token, fingerprint: 'fp' },
        work,
      ),
    ).rejects.toMatchObject({ code: 'invalid_header', status: 400 });
  });
});
