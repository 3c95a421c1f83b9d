import { checkClientTokenShape, clientTokenLength, clientTokenPrefix } from './client-token.ts';

const prefixBeforeSeparator = clientTokenPrefix.slice(0, -1);
const separator = clientTokenPrefix.at(-1) as string;

/**
 * Whether `text` holds anything shaped like a client token: the prefix followed by characters
 * whose checksum matches (spec §5.4), so no store is read. The scan jumps from one `_` to the
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

const tokenLikePattern = new RegExp(
  `${clientTokenPrefix}[0-9A-Za-z]{${clientTokenLength - clientTokenPrefix.length}}`,
  'g',
);

/**
 * `text` with everything that looks like a client token replaced, checksum or not: a log line
 * must not carry a token even when it was mistyped (spec §5.4).
 */
export function redactClientTokens(text: string): string {
  if (!text.includes(clientTokenPrefix)) return text;
  return text.replace(tokenLikePattern, `${clientTokenPrefix}[redacted]`);
}
