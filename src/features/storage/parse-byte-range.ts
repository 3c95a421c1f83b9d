import type { ByteRange } from './blob-store.ts';

export type RangeRequest =
  { kind: 'whole' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

/**
 * One `Range: bytes=…` of RFC 9110 §14.1.2 against a file of `size` bytes. A header this
 * cannot serve as one range (other units, several ranges, bad syntax) is ignored and the whole
 * file sent, which §14.2 allows; a well-formed range that starts past the end is unsatisfiable.
 */
export function parseByteRange(header: string | undefined, size: number): RangeRequest {
  if (header === undefined) return { kind: 'whole' };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (match === null) return { kind: 'whole' };
  const [, firstText = '', lastText = ''] = match;
  if (firstText === '' && lastText === '') return { kind: 'whole' };
  if (firstText === '') {
    // A suffix range: the last N bytes.
    const length = Number(lastText);
    if (length === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - length), end: size - 1 } };
  }
  const start = Number(firstText);
  const last = lastText === '' ? Number.POSITIVE_INFINITY : Number(lastText);
  if (!Number.isSafeInteger(start) || last < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end: Math.min(last, size - 1) } };
}
