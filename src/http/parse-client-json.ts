import { containsClientToken, containsEscapedClientToken } from '../auth/find-client-token.ts';
import { ApiError } from '../canonical/generation-error.ts';
import { findDeepJsonPath, maximumJsonDepth } from '../shared/find-deep-json-path.ts';
import { parseRequestJson } from '../shared/json-source.ts';
import { parseUntrustedJson } from '../shared/parse-json.ts';

/**
 * A client's JSON text (an HTTP body or a WebSocket frame) as a value, checked before any codec
 * sees it: no client token anywhere in it (docs/api.md: it would be forwarded to the provider),
 * well-formed, and nested at most maximumJsonDepth deep (docs/decisions/0025). The token check
 * reads the text once with indexOf; the depth check visits the parsed objects and arrays, not the
 * text.
 */
export function parseClientJson(text: string, what: 'body' | 'frame'): unknown {
  if (text === '') throw new ApiError('invalid_json', `The JSON ${what} is empty.`);
  if (containsClientToken(text)) throw new ApiError('credential_in_body');
  let value: unknown;
  try {
    // A body keeps its text for encodeEdit; a frame is taken apart at once, so it need not.
    value = what === 'body' ? parseRequestJson(text) : parseUntrustedJson(text);
  } catch (error) {
    throw new ApiError('invalid_json', `Malformed JSON ${what}: ${(error as Error).message}.`);
  }
  if (containsEscapedClientToken(text, value)) throw new ApiError('credential_in_body');
  const deepPath = findDeepJsonPath(value);
  if (deepPath !== undefined) {
    throw new ApiError(
      'json_too_deep',
      `The JSON ${what} is nested more than ${maximumJsonDepth} levels deep at ${what}.${deepPath}.`,
      { details: { param: deepPath } },
    );
  }
  return value;
}
