import { describe, expect, it } from 'vitest';

import { parseConfig } from './load-config.ts';

const provider = (id: string, baseUrl = 'http://127.0.0.1:8888') => ({
  id,
  kind: 'searxng',
  baseUrl,
});

describe('the search configuration (docs/search.md)', () => {
  it('takes providers in order with their default timeouts and a price', () => {
    const config = parseConfig({
      search: {
        providers: [provider('a'), { ...provider('b'), kind: 'brave' }],
        pricePerRequest: 0.005,
      },
    });
    expect(config.search?.providers.map((entry) => entry.id)).toEqual(['a', 'b']);
    expect(config.search?.providers[0]).toMatchObject({
      connectTimeoutMs: 5_000,
      firstByteTimeoutMs: 15_000,
      idleTimeoutMs: 15_000,
      maxConnections: 32,
    });
    expect(parseConfig({}).search).toBeUndefined();
  });

  it('refuses a duplicate id, a base URL that is not http(s), an unknown kind and a fine price', () => {
    expect(() => parseConfig({ search: { providers: [provider('a'), provider('a')] } })).toThrow(
      'search.providers[1].id: duplicate provider id "a"',
    );
    expect(() => parseConfig({ search: { providers: [provider('a', 'ftp://x')] } })).toThrow(
      'search.providers[0].baseUrl: not an http(s) URL',
    );
    expect(() =>
      parseConfig({ search: { providers: [{ ...provider('a'), kind: 'google' }] } }),
    ).toThrow('search.providers');
    expect(() =>
      parseConfig({ search: { providers: [provider('a')], pricePerRequest: 0.0000001 } }),
    ).toThrow('search.pricePerRequest: at most 6 decimal places');
    expect(() => parseConfig({ search: { providers: [] } })).toThrow('search.providers');
  });
});
