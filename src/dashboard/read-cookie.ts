/**
 * The value of one cookie in a Cookie header (RFC 6265 §5.4: `name=value` pairs separated by
 * `; `); the first of that name wins, as browsers send the most specific first.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || pair.slice(0, equals).trim() !== name) continue;
    const value = pair.slice(equals + 1).trim();
    return value.startsWith('"') && value.endsWith('"') && value.length >= 2
      ? value.slice(1, -1)
      : value;
  }
  return undefined;
}
