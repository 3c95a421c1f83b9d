import { asRecord, buildSearchResult, readResultList } from './read-search-fields.ts';
import type { SearchAdapter } from './search-types.ts';

/**
 * SearXNG's JSON API: GET /search?q=…&format=json (the instance must list `json` in
 * `search.formats`). It has no result count parameter, so the answer is cut to `max_results`.
 * A key, when configured, goes as a Bearer credential for an authenticating proxy in front.
 */
export const searxngAdapter: SearchAdapter = {
  buildCall(parameters, apiKey) {
    const query = new URLSearchParams({ q: parameters.query, format: 'json' });
    return {
      method: 'GET',
      path: `/search?${query.toString()}`,
      headers: {
        accept: 'application/json',
        ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
      },
    };
  },
  readResults(body, parameters) {
    return readResultList(asRecord(body)?.results, parameters.max_results, (hit) =>
      buildSearchResult({
        title: hit.title,
        url: hit.url,
        content: hit.content,
        score: hit.score,
        publishedDate: hit.publishedDate,
      }),
    );
  },
};
