import { checkClientTokenShape, clientTokenLength, clientTokenPrefix } from './client-token.ts';

const prefixBeforeSeparator = clientTokenPrefix.slice(0, -1);
const separator = clientTokenPrefix.at(-1) as string;

/**
 * Whether `text` holds anything shaped like a client token: the prefix followed by characters
 * whose checksum matches (docs/api.md), so no store is read. The scan jumps from one `_` to the
 * next with indexOf and checks the prefix only there: `_` is far rarer than `s` in request text,
 * and indexOf('sy_') cost about ten times as much on an 82 KB body (docs/performance.md).
 */
export function containsClientToken(text: string): boolean {
  let separatorAt = text.indexOf(separator, prefixBeforeSeparator.length);
  while (separatorAt !== -1) {
    const start = separatorAt - prefixBeforeSeparator.length;
    if (
      text.startsWith(prefixBeforeSeparator, start) &&
      checkClientTokenShape(text.slice(start, start + clientTokenLength)) === 'valid'
    ) {
      return true;
    }
    separatorAt = text.indexOf(separator, separatorAt + 1);
  }
  return false;
}

/** A JSON `\u` escape of a character a token is made of: a digit, a letter or `_`. */
const escapedTokenCharacter = /\\u00(?:3[0-9]|4[1-9a-f]|5[0-9af]|6[1-9a-f]|7[0-9a])/i;

/**
 * Whether a parsed JSON value holds a client token that its text spelled with escapes
 * (`sy\u005f…`), which `containsClientToken` on the text cannot see. The strings and keys are
 * only walked when the text escapes a character a token is made of, which ordinary JSON writers
 * never do, so plain bodies pay one regex test.
 */
export function containsEscapedClientToken(text: string, value: unknown): boolean {
  if (!text.includes('\\u00') || !escapedTokenCharacter.test(text)) return false;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (containsClientToken(item)) return true;
    } else if (Array.isArray(item)) {
      for (const entry of item) pending.push(entry);
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, entry] of Object.entries(item)) {
        if (containsClientToken(key)) return true;
        pending.push(entry);
      }
    }
  }
  return false;
}

const tokenLikePattern = new RegExp(
  `${clientTokenPrefix}[0-9A-Za-z]{${clientTokenLength - clientTokenPrefix.length}}`,
  'g',
);

/**
 * `text` with everything that looks like a client token replaced, checksum or not: a log line
 * must not carry a token even when it was mistyped (docs/api.md).
 */
export function redactClientTokens(text: string): string {
  if (!text.includes(clientTokenPrefix)) return text;
  return text.replace(tokenLikePattern, `${clientTokenPrefix}[redacted]`);
}
