import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

import type { TokenizerName } from '../config/config-schema.ts';

/** A rank that no pair has: the pair is not a token. */
const noRank = 0x7fffffff;

/** FNV-1a over `bytes[start, end)`, the hash the rank table is laid out by. */
function hashBytes(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index++) {
    hash = Math.imul(hash ^ (bytes[index] as number), 0x01000193);
  }
  return hash >>> 0;
}

/**
 * An encoding's ranks in three typed arrays instead of a string map: every token's bytes one
 * after another (`tokens`, rank r at `starts[r]` up to `starts[r + 1]`), and an open-addressed
 * table from the hash of a token's bytes to its rank plus one (`slots`, 0 where empty). For
 * `o200k_base` that is about 4 MB; gpt-tokenizer's own tables (a Map of 200 000 strings and the
 * module that lists them) add about 50 MB to a process (docs/performance.md).
 */
export class RankTable {
  readonly #tokens: Uint8Array;
  readonly #starts: Uint32Array;
  readonly #slots: Int32Array;
  readonly #mask: number;

  constructor(tokens: Uint8Array, starts: Uint32Array) {
    this.#tokens = tokens;
    this.#starts = starts;
    const count = starts.length - 1;
    let size = 1;
    while (size < count * 2) size *= 2;
    this.#slots = new Int32Array(size);
    this.#mask = size - 1;
    for (let rank = 0; rank < count; rank++) {
      const start = starts[rank] as number;
      const end = starts[rank + 1] as number;
      let slot = hashBytes(tokens, start, end) & this.#mask;
      while (this.#slots[slot] !== 0) {
        if (this.#same(this.#slots[slot] as number, tokens, start, end)) {
          throw new Error(`The rank file lists the bytes of rank ${rank} twice`);
        }
        slot = (slot + 1) & this.#mask;
      }
      this.#slots[slot] = rank + 1;
    }
  }

  /** The rank of the token made of `bytes[start, end)`, or `noRank`. */
  rank(bytes: Uint8Array, start: number, end: number): number {
    let slot = hashBytes(bytes, start, end) & this.#mask;
    for (;;) {
      const entry = this.#slots[slot] as number;
      if (entry === 0) return noRank;
      if (this.#same(entry, bytes, start, end)) return entry - 1;
      slot = (slot + 1) & this.#mask;
    }
  }

  #same(entry: number, bytes: Uint8Array, start: number, end: number): boolean {
    const tokenStart = this.#starts[entry - 1] as number;
    if ((this.#starts[entry] as number) - tokenStart !== end - start) return false;
    const tokens = this.#tokens;
    for (let index = 0; index < end - start; index++) {
      if (tokens[tokenStart + index] !== bytes[start + index]) return false;
    }
    return true;
  }
}

/** The value of each base64 digit's character code; -1 for any other byte. */
const base64Digits = new Int8Array(256).fill(-1);
for (const [value, digit] of [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
].entries()) {
  base64Digits[digit.charCodeAt(0)] = value;
}

const space = 0x20;
const newline = 0x0a;
const equals = 0x3d;
const zero = 0x30;

/**
 * Reads a `.tiktoken` rank file (OpenAI's format: one token a line, its bytes in base64, a space,
 * its rank). Ranks must run 0, 1, 2… in order, as they do in the published files. Read straight
 * from the file's bytes: a string per line would leave the heap grown by ~15 MB for good.
 */
export function parseTiktokenRanks(file: Uint8Array): RankTable {
  let lines = 0;
  for (const byte of file) if (byte === newline) lines++;
  if (file.length > 0 && file[file.length - 1] !== newline) lines++;
  const starts = new Uint32Array(lines + 1);
  // Base64 takes four characters for three bytes: the file's length bounds the bytes.
  const tokens = new Uint8Array(file.length);
  let written = 0;
  let at = 0;
  for (let rank = 0; rank < lines; rank++) {
    starts[rank] = written;
    let bits = 0;
    let pending = 0;
    for (; at < file.length && file[at] !== space; at++) {
      const byte = file[at] as number;
      if (byte === equals) continue;
      const digit = base64Digits[byte] as number;
      if (digit < 0) throw new Error(`Line ${rank + 1} of the rank file has a byte outside base64`);
      // Only the bits not yet written matter: at most 14 of them.
      bits = ((bits << 6) | digit) & 0x3fff;
      pending += 6;
      if (pending >= 8) {
        pending -= 8;
        tokens[written++] = (bits >> pending) & 0xff;
      }
    }
    let listed = 0;
    let digits = 0;
    let decimal = true;
    for (at++; at < file.length && file[at] !== newline; at++, digits++) {
      const digit = (file[at] as number) - zero;
      decimal &&= digit >= 0 && digit <= 9;
      listed = listed * 10 + digit;
    }
    at++;
    if (written === starts[rank] || digits === 0 || !decimal || listed !== rank) {
      throw new Error(`Line ${rank + 1} of the rank file is not "<base64> ${rank}"`);
    }
  }
  starts[lines] = written;
  return new RankTable(tokens.slice(0, written), starts);
}

/**
 * Counts the tokens of a text as tiktoken encodes it with special tokens treated as ordinary text
 * (what a prompt's `<|endoftext|>` is to the model): the text is split by the encoding's pattern,
 * each piece that is a token counts one, and any other piece is merged pair by pair, lowest rank
 * first, until no adjacent pair is a token; its parts are its tokens.
 */
export class BytePairCounter {
  readonly #ranks: RankTable;
  readonly #split: RegExp;
  readonly #encoder = new TextEncoder();
  #bytes = new Uint8Array(256);
  #partStarts = new Int32Array(257);
  #pairRanks = new Int32Array(257);

  constructor(ranks: RankTable, split: RegExp) {
    this.#ranks = ranks;
    this.#split = new RegExp(split.source, split.flags);
  }

  count(text: string): number {
    const split = this.#split;
    split.lastIndex = 0;
    let total = 0;
    for (let match = split.exec(text); match !== null; match = split.exec(text)) {
      total += this.#countPiece(match[0]);
    }
    return total;
  }

  #countPiece(piece: string): number {
    const length = this.#encode(piece);
    const bytes = this.#bytes;
    if (this.#ranks.rank(bytes, 0, length) !== noRank) return 1;
    return this.#merge(length);
  }

  /** The piece's UTF-8 bytes into `#bytes`, growing it when needed; their number. */
  #encode(piece: string): number {
    if (piece.length * 3 > this.#bytes.length) {
      this.#bytes = new Uint8Array(piece.length * 3);
      this.#partStarts = new Int32Array(piece.length * 3 + 1);
      this.#pairRanks = new Int32Array(piece.length * 3 + 1);
    }
    const bytes = this.#bytes;
    for (let index = 0; index < piece.length; index++) {
      const code = piece.charCodeAt(index);
      if (code >= 0x80) return this.#encoder.encodeInto(piece, bytes).written;
      bytes[index] = code;
    }
    return piece.length;
  }

  /**
   * Byte-pair merging of `#bytes[0, length)`: parts start as single bytes; the adjacent pair with
   * the lowest rank joins, the ranks of its new neighbours' pairs are looked up, until no pair
   * is a token. Quadratic in the piece, like tiktoken's own; pieces are words and runs.
   */
  #merge(length: number): number {
    const bytes = this.#bytes;
    const ranks = this.#ranks;
    const starts = this.#partStarts;
    const pairRanks = this.#pairRanks;
    // Part i is bytes[starts[i], starts[i + 1]); pairRanks[i] is the rank of parts i and i + 1.
    let parts = length;
    for (let index = 0; index <= length; index++) starts[index] = index;
    for (let index = 0; index < length - 1; index++) {
      pairRanks[index] = ranks.rank(bytes, index, index + 2);
    }
    pairRanks[length - 1] = noRank;
    for (;;) {
      let lowest = noRank;
      let at = -1;
      for (let index = 0; index < parts - 1; index++) {
        if ((pairRanks[index] as number) < lowest) {
          lowest = pairRanks[index] as number;
          at = index;
        }
      }
      if (at === -1) return parts;
      // Parts at and at + 1 become one: drop the start of at + 1 and the pair rank of `at`.
      starts.copyWithin(at + 1, at + 2, parts + 1);
      pairRanks.copyWithin(at, at + 1, parts);
      parts -= 1;
      pairRanks[at] =
        at + 1 < parts ? ranks.rank(bytes, starts[at] as number, starts[at + 2] as number) : noRank;
      if (at > 0) {
        pairRanks[at - 1] = ranks.rank(bytes, starts[at - 1] as number, starts[at + 1] as number);
      }
    }
  }
}

/**
 * An encoding's counter, from the rank file gpt-tokenizer ships (`data/<name>.tiktoken`) and its
 * split pattern. The patterns are imported here, on first use: their Unicode classes take ~2 MB
 * of memory that a gateway which never counts locally need not hold.
 */
export async function loadBytePairCounter(name: TokenizerName): Promise<BytePairCounter> {
  const { O200K_TOKEN_SPLIT_REGEX, CL100K_TOKEN_SPLIT_REGEX } =
    await import('gpt-tokenizer/encodingParams/constants');
  const path = createRequire(import.meta.url).resolve(`gpt-tokenizer/data/${name}.tiktoken`);
  const split = name === 'o200k_base' ? O200K_TOKEN_SPLIT_REGEX : CL100K_TOKEN_SPLIT_REGEX;
  return new BytePairCounter(parseTiktokenRanks(await readFile(path)), split);
}
