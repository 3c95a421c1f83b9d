/**
 * Piece sizes cycle through 3–8 characters so consumers that keep only the first or last delta,
 * or assume a delta is a whole word or JSON token, fail visibly.
 */
const pieceSizes = [3, 5, 8, 4, 7, 6];

/** Splits on code points, never inside a surrogate pair, as real upstreams do. */
export function splitIntoDeltas(text: string): string[] {
  const codePoints = Array.from(text);
  const pieces: string[] = [];
  let position = 0;
  for (let turn = 0; position < codePoints.length; turn += 1) {
    const size = pieceSizes[turn % pieceSizes.length] ?? 4;
    pieces.push(codePoints.slice(position, position + size).join(''));
    position += size;
  }
  return pieces;
}
