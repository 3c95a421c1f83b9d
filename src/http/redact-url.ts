/** Query parameters that would carry a credential; they are refused (spec §5.4) and never logged. */
export const credentialQueryParameters = new Set([
  'key',
  'api_key',
  'apikey',
  'api-key',
  'x-api-key',
  'token',
  'access_token',
  'auth',
  'authorization',
  'bearer',
]);

/** The URL as it may be logged: the query string is replaced by its parameter names only. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  if (queryStart === -1) return url;
  const names = new URLSearchParams(url.slice(queryStart + 1)).keys();
  return `${url.slice(0, queryStart)}?${[...new Set(names)].map((name) => `${name}=…`).join('&')}`;
}

export function hasCredentialInQuery(query: unknown): boolean {
  if (typeof query !== 'object' || query === null) return false;
  return Object.keys(query).some((name) => credentialQueryParameters.has(name.toLowerCase()));
}
