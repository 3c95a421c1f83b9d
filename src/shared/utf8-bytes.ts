/**
 * UTF-8 for request bodies on their way upstream. Text whose UTF-8 length equals its length is
 * ASCII, and ASCII is the same bytes in Latin-1, which Node copies several times faster than it
 * encodes UTF-8 (Node 20: 16 against 57 µs for an 80 KB body, docs/performance.md). Measuring
 * the UTF-8 length is one fast scan.
 */
export function utf8Bytes(text: string): Buffer {
  return Buffer.from(text, Buffer.byteLength(text) === text.length ? 'latin1' : 'utf8');
}

/** Writes `text`, whose UTF-8 length is `byteLength`, at `offset`; returns the offset after it. */
export function writeUtf8(out: Buffer, text: string, byteLength: number, offset: number): number {
  return offset + out.write(text, offset, byteLength === text.length ? 'latin1' : 'utf8');
}
