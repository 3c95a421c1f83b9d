import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Client tokens (docs/api.md): a fixed service prefix, 190 bits of randomness and a CRC-32
 * checksum, all base62: `sy_` + 32 random characters + 6 checksum characters. The checksum lets
 * the gateway refuse a mistyped or foreign token without touching the database.
 */
export const clientTokenPrefix = 'sy_';
const randomLength = 32;
const checksumLength = 6;
/** The length of every client token, prefix included. */
export const clientTokenLength = clientTokenPrefix.length + randomLength + checksumLength;
const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const tokenPattern = new RegExp(
  `^${clientTokenPrefix}[0-9A-Za-z]{${randomLength + checksumLength}}$`,
);

const crcTable = (() => {
  const table = new Uint32Array(256);
  for (let index = 0; index < 256; index += 1) {
    let value = index;
    for (let bit = 0; bit < 8; bit += 1)
      value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
    table[index] = value >>> 0;
  }
  return table;
})();

function crc32(text: string): number {
  let crc = 0xffffffff;
  for (let index = 0; index < text.length; index += 1) {
    crc = (crcTable[(crc ^ text.charCodeAt(index)) & 0xff] as number) ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function encodeBase62(value: number, length: number): string {
  let result = '';
  let rest = value;
  for (let index = 0; index < length; index += 1) {
    result = base62[rest % 62] + result;
    rest = Math.floor(rest / 62);
  }
  return result;
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniform (256 is not a multiple of 62).
  let result = '';
  while (result.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && result.length < length) result += base62[byte % 62];
    }
  }
  return result;
}

/** Once per request: the one-shot digest builds no `Hash` object (about 1 µs against 2 µs). */
export function hashClientToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export interface IssuedToken {
  token: string;
  hash: string;
  /** Enough to recognise the token in a list, too little to use it. */
  displayPrefix: string;
}

export function generateClientToken(): IssuedToken {
  const body = randomBase62(randomLength);
  const token = `${clientTokenPrefix}${body}${encodeBase62(crc32(body), checksumLength)}`;
  return { token, hash: hashClientToken(token), displayPrefix: `${token.slice(0, 9)}…` };
}

export type TokenShape = 'valid' | 'foreign' | 'malformed';

/** Checks prefix, length, alphabet and checksum: no I/O. */
export function checkClientTokenShape(token: string): TokenShape {
  if (!token.startsWith(clientTokenPrefix)) return 'foreign';
  if (!tokenPattern.test(token)) return 'malformed';
  const body = token.slice(clientTokenPrefix.length, clientTokenPrefix.length + randomLength);
  const checksum = token.slice(clientTokenPrefix.length + randomLength);
  return encodeBase62(crc32(body), checksumLength) === checksum ? 'valid' : 'malformed';
}

/** Constant-time comparison of two hex hashes of equal length. */
export function hashesEqual(left: string, right: string): boolean {
  const leftBytes = Buffer.from(left, 'hex');
  const rightBytes = Buffer.from(right, 'hex');
  return leftBytes.length === rightBytes.length && timingSafeEqual(leftBytes, rightBytes);
}
