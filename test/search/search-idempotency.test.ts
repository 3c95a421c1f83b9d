import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { bearer, postSearch, startSearchBed, type SearchBed } from './search-test-bed.ts';

const credits = 1_000_000;
const price = 5_000;

describe('POST /v1/search replays under x-request-id (docs/decisions/0060)', () => {
  let bed: SearchBed;
  beforeAll(async () => {
    bed = await startSearchBed(['tavily']);
  });
  afterAll(async () => bed.close());

  const calls = () => bed.upstreams[0]?.requests.length ?? 0;

  it('replays the same id with the same parameters: same bytes, no call, no charge', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const headers = { ...bearer(token), 'x-request-id': 'search-1' };
    const first = await postSearch(bed.gateway, headers, { query: 'replay me' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = calls();
    // Defaults spelled out are the same parameters.
    const again = await postSearch(bed.gateway, headers, {
      max_results: 8,
      query: 'replay me',
      effort: 'basic',
    });
    expect(again.statusCode).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(calls()).toBe(before);
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(credits - price);
    const metrics = await bed.gateway.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^switchyard_idempotency_replays_total\{operation="search"\} 1$/m);
  });

  it('answers 409 for the same id with other parameters, naming the header', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const headers = { ...bearer(token), 'x-request-id': 'search-2' };
    expect((await postSearch(bed.gateway, headers, { query: 'a' })).statusCode).toBe(200);
    const before = calls();
    const changed = await postSearch(bed.gateway, headers, { query: 'a', max_results: 3 });
    expect(changed.statusCode).toBe(409);
    expect(changed.json().error.message).toContain('x-request-id');
    expect(calls()).toBe(before);
  });

  it('keeps ids apart per account, and runs a request without an id every time', async () => {
    const { token: one } = await bed.gateway.createToken({ credits });
    const { token: two } = await bed.gateway.createToken({ credits });
    const before = calls();
    await postSearch(bed.gateway, { ...bearer(one), 'x-request-id': 'shared' }, { query: 'x' });
    const other = await postSearch(
      bed.gateway,
      { ...bearer(two), 'x-request-id': 'shared' },
      { query: 'y' },
    );
    expect(other.statusCode).toBe(200);
    await postSearch(bed.gateway, bearer(one), { query: 'x' });
    await postSearch(bed.gateway, bearer(one), { query: 'x' });
    expect(calls()).toBe(before + 4);
  });

  it('runs again after a failure under the same id: a failure is not replayed', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const headers = { ...bearer(token), 'x-request-id': 'search-3' };
    bed.upstreams[0]?.replies.push({ status: 503, body: {} });
    expect((await postSearch(bed.gateway, headers, { query: 'z' })).statusCode).toBe(503);
    const retry = await postSearch(bed.gateway, headers, { query: 'z' });
    expect(retry.statusCode).toBe(200);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });
});
