import { containsClientToken, redactClientTokens } from '../auth/find-client-token.ts';

/**
 * Query parameters that would carry a credential; they are refused (docs/api.md) and never logged.
 */
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

/** The URL as it may be logged: query values dropped (names kept), token-shaped text redacted. */
export function redactUrl(url: string): string {
  const queryStart = url.indexOf('?');
  const path = redactClientTokens(
    decodeForCheck(queryStart === -1 ? url : url.slice(0, queryStart)),
  );
  if (queryStart === -1) return path;
  const names = new URLSearchParams(url.slice(queryStart + 1)).keys();
  const redactedNames = [...new Set(names)].map((name) => `${redactClientTokens(name)}=…`);
  return `${path}?${redactedNames.join('&')}`;
}

/**
 * Refused because a token never travels in a URL (docs/api.md): a credential-named query
 * parameter in any spelling (`key`, `key[]`, `api_key[0]`), or anything shaped like a client token
 * anywhere in the URL (path, query names, values), percent-encoded or not. Checked on the text:
 * no store is read.
 */
export function hasCredentialInUrl(url: string, query: unknown): boolean {
  if (typeof query === 'object' && query !== null) {
    for (const name in query) {
      if (credentialQueryParameters.has(baseParameterName(name))) return true;
    }
  }
  if (containsClientToken(url)) return true;
  return url.includes('%') && containsClientToken(decodeForCheck(url));
}

/** `api_key[0]` and `key[]` (bracket notation of PHP and Rails clients) name `api_key`, `key`. */
function baseParameterName(name: string): string {
  const bracket = name.indexOf('[');
  return (bracket === -1 ? name : name.slice(0, bracket)).toLowerCase();
}

/** Percent-decoded; one malformed escape must not hide an encoded `_` (`sy%5F…`) elsewhere. */
function decodeForCheck(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%5f/gi, '_');
  }
}
