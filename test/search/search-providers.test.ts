import { afterEach, describe, expect, it } from 'vitest';

import { completionLine } from '../support/test-gateway.ts';
import {
  bearer,
  postSearch,
  providerKey,
  startSearchBed,
  type SearchBed,
} from './search-test-bed.ts';

describe('POST /v1/search: each provider behind one answer', () => {
  let bed: SearchBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  it('asks a Tavily-style API with the key as Bearer and in the body, and reads its hits', async () => {
    bed = await startSearchBed(['tavily']);
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'node streams' });
    expect(response.statusCode).toBe(200);
    const sent = bed.upstreams[0]?.requests[0];
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/search');
    expect(sent?.headers.authorization).toBe(`Bearer ${providerKey(0)}`);
    expect(sent?.body).toEqual({
      query: 'node streams',
      search_depth: 'basic',
      max_results: 8,
      api_key: providerKey(0),
    });
    const answer = response.json();
    expect(answer).toMatchObject({
      query: 'node streams',
      provider: 'tavily-0',
      request_id: response.headers['request-id'],
      usage: { requests: 1, credits: 0.005 },
    });
    expect(answer.results).toHaveLength(8);
    expect(answer.results[0]).toEqual({
      title: 'Result 1 for node streams',
      url: 'https://example.com/1?q=node%20streams',
      content: 'Snippet 1 about node streams',
      score: 1,
      published_date: '2026-01-01T00:00:00Z',
    });
  });

  it('leaves a completion log line saying what the search came to', async () => {
    bed = await startSearchBed(['tavily']);
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'node streams' });
    expect(response.statusCode).toBe(200);
    const line = completionLine(bed.gateway, response.headers['request-id']);
    expect(line).toMatchObject({
      model: 'search',
      provider: 'tavily-0',
      outcome: 'ok',
      costMicroCredits: 5_000,
    });
    expect(JSON.stringify(bed.gateway.logs)).not.toContain(token);
  });

  it('asks Brave with X-Subscription-Token and count, as plain text without a score', async () => {
    bed = await startSearchBed(['brave']);
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const response = await postSearch(
      bed.gateway,
      { 'x-api-key': token },
      { query: 'undici pool', max_results: 3 },
    );
    expect(response.statusCode).toBe(200);
    const sent = bed.upstreams[0]?.requests[0];
    expect(sent?.method).toBe('GET');
    expect(sent?.path).toBe('/res/v1/web/search');
    expect(sent?.query.get('q')).toBe('undici pool');
    expect(sent?.query.get('count')).toBe('3');
    expect(sent?.headers['x-subscription-token']).toBe(providerKey(0));
    expect(sent?.headers.authorization).toBeUndefined();
    const answer = response.json();
    expect(answer.provider).toBe('brave-0');
    expect(answer.results).toHaveLength(3);
    expect(answer.results[1]).toEqual({
      title: 'Result 2 for undici pool',
      url: 'https://example.com/2?q=undici%20pool',
      content: 'Snippet 2 about undici pool',
      published_date: '2026-01-02T00:00:00Z',
    });
  });

  it('asks SearXNG for JSON and cuts its whole page to max_results', async () => {
    bed = await startSearchBed(['searxng']);
    const { token } = await bed.gateway.createToken({ credits: 1_000_000 });
    const response = await postSearch(bed.gateway, bearer(token), {
      query: 'fastify',
      max_results: 10,
    });
    expect(response.statusCode).toBe(200);
    const sent = bed.upstreams[0]?.requests[0];
    expect(sent?.method).toBe('GET');
    expect(sent?.path).toBe('/search');
    expect(sent?.query.get('format')).toBe('json');
    expect(sent?.query.get('q')).toBe('fastify');
    const answer = response.json();
    expect(answer.provider).toBe('searxng-0');
    expect(answer.results).toHaveLength(10);
    expect(answer.results[0].published_date).toBe('2026-01-01T00:00:00Z');
    // SearXNG gives no date for some hits: the field is absent, never null.
    expect(answer.results[1]).not.toHaveProperty('published_date');
    expect(answer.results[1].score).toBeCloseTo(2.97);
  });

  it('answers 502 for a 200 that is not the provider’s answer shape, and charges nothing', async () => {
    bed = await startSearchBed(['tavily']);
    const { token, accountId } = await bed.gateway.createToken({ credits: 1_000_000 });
    bed.upstreams[0]?.replies.push({ body: { results: 'nope' } });
    const response = await postSearch(bed.gateway, bearer(token), { query: 'q' });
    expect(response.statusCode).toBe(502);
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toEqual({
      balance: 1_000_000,
      held: 0,
      available: 1_000_000,
    });
  });
});
