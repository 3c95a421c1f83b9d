import { afterEach, describe, expect, it } from 'vitest';

import { startFakeSearchUpstream } from './fake-search-upstream.ts';
import { bearer, postSearch, startSearchBed, type SearchBed } from './search-test-bed.ts';

const credits = 1_000_000;
const price = 5_000;

describe('POST /v1/search: upstream failures, fallback and money', () => {
  let bed: SearchBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  const balanceOf = (accountId: string) =>
    (bed as SearchBed).gateway.store.ledger.getBalance(accountId);

  it('falls back to the next provider on a 5xx and charges the one answer once', async () => {
    bed = await startSearchBed(['tavily', 'brave']);
    const { token, accountId } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({ status: 500, body: { detail: 'boom' } });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(response.statusCode).toBe(200);
    expect(response.json().provider).toBe('brave-1');
    expect(bed.upstreams[0]?.requests).toHaveLength(1);
    expect(bed.upstreams[1]?.requests).toHaveLength(1);
    expect(await balanceOf(accountId)).toEqual({
      balance: credits - price,
      held: 0,
      available: credits - price,
    });
  });

  it('falls back on a timeout and on a connect failure', async () => {
    const closed = await startFakeSearchUpstream();
    const deadUrl = closed.url;
    await closed.close();
    bed = await startSearchBed(['tavily', 'searxng'], { provider: { firstByteTimeoutMs: 200 } });
    const { token } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({ delayMs: 1_000, body: {} });
    const timedOut = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(timedOut.statusCode).toBe(200);
    expect(timedOut.json().provider).toBe('searxng-1');

    await bed.close();
    // The first provider's address answers nothing: its listener was closed.
    bed = await startSearchBed(['brave', 'tavily'], { baseUrls: [deadUrl] });
    const { token: second } = await bed.gateway.createToken({ credits });
    const unreachable = await postSearch(bed.gateway, bearer(second), { query: 'q' });
    expect(unreachable.statusCode).toBe(200);
    expect(unreachable.json().provider).toBe('tavily-1');
    expect(bed.upstreams[0]?.requests).toHaveLength(0);
  });

  it('stops reading an answer past 4 MiB and moves to the next provider', async () => {
    bed = await startSearchBed(['tavily', 'searxng']);
    const { token } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({
      body: { results: [{ title: 'x'.repeat(5 * 1024 * 1024), url: 'https://a.example' }] },
    });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(response.statusCode).toBe(200);
    expect(response.json().provider).toBe('searxng-1');
  });

  it('answers 502 when every provider fails, releasing the hold', async () => {
    bed = await startSearchBed(['searxng', 'tavily']);
    const { token, accountId } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({ status: 502, body: {} });
    bed.upstreams[1]?.replies.push({ destroy: true });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(response.statusCode).toBe(502);
    expect(response.json().error.message).toContain('tavily-1');
    expect(await balanceOf(accountId)).toEqual({ balance: credits, held: 0, available: credits });
  });

  it('keeps an upstream 429 and its retry-after, without trying the next provider', async () => {
    bed = await startSearchBed(['brave', 'tavily']);
    const { token, accountId } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({
      status: 429,
      headers: { 'retry-after': '7' },
      body: { type: 'ErrorResponse', error: { code: 'RATE_LIMITED', detail: 'slow down' } },
    });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(bed.upstreams[1]?.requests).toHaveLength(0);
    expect(await balanceOf(accountId)).toEqual({ balance: credits, held: 0, available: credits });
  });

  /** The one line the error handler writes for an upstream's failure (docs/decisions/0111). */
  const upstreamFailureLine = (requestId: unknown) =>
    (bed as SearchBed).gateway.logs
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.msg === 'upstream call failed' && entry.requestId === requestId);

  it('answers an upstream 404 from a wrong baseUrl with 502, logging provider and path without the query', async () => {
    const upstream = await startFakeSearchUpstream();
    bed = await startSearchBed(['brave'], { baseUrls: [`${upstream.url}/v1`] });
    const { token, accountId } = await bed.gateway.createToken({ credits });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'private words' });
    await upstream.close();
    expect(upstream.requests.map((request) => request.path)).toEqual(['/v1/res/v1/web/search']);
    expect(response.statusCode).toBe(502);
    expect(response.json().error.code).toBe('upstream_error');
    const line = upstreamFailureLine(response.headers['request-id']);
    expect(line).toMatchObject({
      level: 40,
      provider: 'brave-0',
      upstreamStatus: 404,
      upstreamPath: '/v1/res/v1/web/search',
    });
    expect(line?.cause).toContain('baseUrl');
    expect(bed.gateway.logs.join('\n')).not.toContain('private');
    expect(await balanceOf(accountId)).toEqual({ balance: credits, held: 0, available: credits });
  });

  it('names the unset key variable as the cause of a refused call, never the client', async () => {
    const unset = 'SWITCHYARD_TEST_SEARCH_KEY_NOBODY_SET';
    delete process.env[unset];
    bed = await startSearchBed(['tavily'], { provider: { apiKeyEnv: unset } });
    const { token } = await bed.gateway.createToken({ credits });
    bed.upstreams[0]?.replies.push({ status: 401, body: { detail: { error: 'Unauthorized' } } });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(response.statusCode).toBe(502);
    expect(response.body).not.toContain(unset);
    const line = upstreamFailureLine(response.headers['request-id']);
    expect(line).toMatchObject({ level: 40, provider: 'tavily-0', upstreamStatus: 401 });
    expect(line?.cause).toContain(unset);
  });

  it('answers 402 without the balance for the price, before asking any provider', async () => {
    bed = await startSearchBed(['tavily']);
    const { token } = await bed.gateway.createToken({ credits: price - 1 });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(response.statusCode).toBe(402);
    expect(bed.upstreams[0]?.requests).toHaveLength(0);
    const { token: enough } = await bed.gateway.createToken({ credits: price });
    expect((await postSearch(bed.gateway, bearer(enough), { query: 'q' })).statusCode).toBe(200);
  });

  it('counts a search against the token’s request limit: 429 with retry-after, no call', async () => {
    bed = await startSearchBed(['tavily'], {
      config: { limits: { token: { requestsPerMinute: 1 } } },
    });
    const { token, accountId } = await bed.gateway.createToken({ credits });
    expect((await postSearch(bed.gateway, bearer(token), { query: 'q' })).statusCode).toBe(200);
    const limited = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(bed.upstreams[0]?.requests).toHaveLength(1);
    expect((await balanceOf(accountId)).balance).toBe(credits - price);
  });

  it('charges nothing and holds nothing when the price is zero', async () => {
    bed = await startSearchBed(['searxng'], { pricePerRequest: 0 });
    const { token, accountId } = await bed.gateway.createToken({ credits: 0 });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(response.statusCode).toBe(200);
    expect(response.json().usage).toEqual({ requests: 1, credits: 0 });
    expect(await balanceOf(accountId)).toEqual({ balance: 0, held: 0, available: 0 });
  });
});
