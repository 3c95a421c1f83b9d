import { asRecord, buildSearchResult, readResultList } from './read-search-fields.ts';
import type { SearchAdapter } from './search-types.ts';

/** Brave marks the query's words in snippets with <strong>; the answer carries plain text. */
function stripMarkup(text: unknown): unknown {
  return typeof text === 'string' ? text.replace(/<\/?[a-z][^>]*>/gi, '') : text;
}

/**
 * The Brave Search API: GET /res/v1/web/search?q=…&count=… with the key in
 * `X-Subscription-Token`. Hits are in `web.results` with a `description` and, when known, a
 * `page_age` (ISO date); Brave gives no relevance score.
 */
export const braveAdapter: SearchAdapter = {
  buildCall(parameters, apiKey) {
    const query = new URLSearchParams({
      q: parameters.query,
      count: String(parameters.max_results),
    });
    return {
      method: 'GET',
      path: `/res/v1/web/search?${query.toString()}`,
      headers: {
        accept: 'application/json',
        ...(apiKey === undefined ? {} : { 'x-subscription-token': apiKey }),
      },
    };
  },
  readResults(body, parameters) {
    const root = asRecord(body);
    if (root === undefined) return undefined;
    // No `web` section is Brave's way of saying "nothing found".
    if (root.web === undefined) return [];
    return readResultList(asRecord(root.web)?.results, parameters.max_results, (hit) =>
      buildSearchResult({
        title: stripMarkup(hit.title),
        url: hit.url,
        content: stripMarkup(hit.description),
        publishedDate: hit.page_age,
      }),
    );
  },
};
