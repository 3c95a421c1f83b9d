import { asRecord, buildSearchResult, readResultList } from './read-search-fields.ts';
import type { SearchAdapter } from './search-types.ts';

/**
 * A Tavily-style API: POST /search with a JSON body; the key goes both as a Bearer credential
 * (Tavily's current form) and as `api_key` in the body (its older form, still what compatible
 * services read). The answer is `{query, results: [{title, url, content, score, published_date}]}`.
 */
export const tavilyAdapter: SearchAdapter = {
  buildCall(parameters, apiKey) {
    return {
      method: 'POST',
      path: '/search',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }),
      },
      body: JSON.stringify({
        query: parameters.query,
        search_depth: parameters.effort,
        max_results: parameters.max_results,
        ...(apiKey === undefined ? {} : { api_key: apiKey }),
      }),
    };
  },
  readResults(body, parameters) {
    return readResultList(asRecord(body)?.results, parameters.max_results, (hit) =>
      buildSearchResult({
        title: hit.title,
        url: hit.url,
        content: hit.content,
        score: hit.score,
        publishedDate: hit.published_date,
      }),
    );
  },
};
