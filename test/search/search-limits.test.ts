import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startTestGateway } from '../support/test-gateway.ts';
import { bearer, postSearch, startSearchBed, type SearchBed } from './search-test-bed.ts';

describe('POST /v1/search limits at their boundaries', () => {
  let bed: SearchBed;
  let token: string;
  beforeAll(async () => {
    bed = await startSearchBed(['tavily']);
    ({ token } = await bed.gateway.createToken({ credits: 100_000_000 }));
  });
  afterAll(async () => bed.close());

  const accepted = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await postSearch(bed.gateway, { ...bearer(token), ...headers }, body);
    expect(response.statusCode, response.body).toBe(200);
    return response;
  };
  const refused = async (body: unknown, named: string, headers: Record<string, string> = {}) => {
    const before = bed.upstreams[0]?.requests.length;
    const response = await postSearch(bed.gateway, { ...bearer(token), ...headers }, body);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.body).toContain(named);
    // A refused request never reaches the provider.
    expect(bed.upstreams[0]?.requests.length).toBe(before);
    return response;
  };

  it('takes a query of 1 and 2000 characters and refuses 0 and 2001', async () => {
    await accepted({ query: 'q' });
    await accepted({ query: 'q'.repeat(2000) });
    await refused({ query: '' }, 'query');
    await refused({ query: 'q'.repeat(2001) }, 'query');
    await refused({}, 'query');
    await refused({ query: 5 }, 'query');
  });

  it('takes max_results 1 and 10, refuses 0, 11 and a fraction, and defaults to 8', async () => {
    const one = await accepted({ query: 'q', max_results: 1 });
    expect(one.json().results).toHaveLength(1);
    const ten = await accepted({ query: 'q', max_results: 10 });
    expect(ten.json().results).toHaveLength(10);
    expect((bed.upstreams[0]?.requests.at(-1)?.body as { max_results: number }).max_results).toBe(
      10,
    );
    await refused({ query: 'q', max_results: 0 }, 'max_results');
    await refused({ query: 'q', max_results: 11 }, 'max_results');
    await refused({ query: 'q', max_results: 2.5 }, 'max_results');
    expect((await accepted({ query: 'q' })).json().results).toHaveLength(8);
  });

  it('takes effort basic only', async () => {
    await accepted({ query: 'q', effort: 'basic' });
    await refused({ query: 'q', effort: 'advanced' }, 'effort');
  });

  it('refuses any other field, naming it', async () => {
    const response = await refused({ query: 'q', include_answer: true }, 'include_answer');
    expect(response.json().error.message).toContain('include_answer');
  });

  it('takes an x-request-id of 1 and 80 characters and refuses 81 or unsafe characters', async () => {
    await accepted({ query: 'q' }, { 'x-request-id': 'a' });
    await accepted({ query: 'q' }, { 'x-request-id': 'b'.repeat(80) });
    await refused({ query: 'q' }, 'x-request-id', { 'x-request-id': 'c'.repeat(81) });
    await refused({ query: 'q' }, 'x-request-id', { 'x-request-id': 'has space' });
    await refused({ query: 'q' }, 'x-request-id', { 'x-request-id': 'ünïcode' });
  });

  it('needs search:create, through Bearer or x-api-key', async () => {
    await accepted({ query: 'q' }, { authorization: '', 'x-api-key': token });
    const { token: other } = await bed.gateway.createToken({
      credits: 1_000_000,
      permissions: ['inference:create'],
    });
    const denied = await postSearch(bed.gateway, bearer(other), { query: 'q' });
    expect(denied.statusCode).toBe(401);
    expect(denied.body).toContain('permission');
    expect((await postSearch(bed.gateway, {}, { query: 'q' })).statusCode).toBe(401);
  });

  it('does not exist without a search configuration', async () => {
    const bare = await startTestGateway();
    try {
      const { token: some } = await bare.createToken({ credits: 1_000_000 });
      expect((await postSearch(bare, bearer(some), { query: 'q' })).statusCode).toBe(404);
    } finally {
      await bare.close();
    }
  });
});
