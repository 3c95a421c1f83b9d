/** The search request after validation and defaults (docs/search.md). */
export interface SearchParameters {
  query: string;
  effort: 'basic';
  max_results: number;
}

/** One normalized hit; `score` and `published_date` only when the provider gave them. */
export interface SearchResult {
  title: string;
  url: string;
  content: string;
  score?: number;
  published_date?: string;
}

/** The one answer every provider is read into (docs/search.md). */
export interface SearchAnswer {
  query: string;
  results: SearchResult[];
  /** The configured id of the provider that answered. */
  provider: string;
  request_id: string;
  usage: { requests: number; credits: number };
}

/** What an adapter asks the upstream pool to send. */
export interface SearchUpstreamCall {
  method: 'GET' | 'POST';
  /** Path and query string, relative to the provider's base URL. */
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** One provider's wire format: how a search is asked, and how its answer is read. */
export interface SearchAdapter {
  buildCall(parameters: SearchParameters, apiKey: string | undefined): SearchUpstreamCall;
  /** The hits of a 2xx answer; undefined when the body is not the provider's answer shape. */
  readResults(body: unknown, parameters: SearchParameters): SearchResult[] | undefined;
}
