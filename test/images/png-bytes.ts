import { deflateSync, inflateSync } from 'node:zlib';

const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const crcTable = Array.from({ length: 256 }, (_, index) => {
  let value = index;
  for (let bit = 0; bit < 8; bit += 1) value = value & 1 ? 0xedb88320 ^ (value >>> 1) : value >>> 1;
  return value >>> 0;
});

/** CRC-32 as PNG chunks carry it (ISO 3309, over type and data). */
function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = (crcTable[(crc ^ byte) & 0xff] as number) ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The RGB pixels of a small picture that differs by `seed`. */
export function pixelsFor(width: number, height: number, seed: number): Buffer {
  const pixels = Buffer.alloc(width * height * 3);
  for (let index = 0; index < width * height; index += 1) {
    pixels[index * 3] = (index * 7 + seed) & 0xff;
    pixels[index * 3 + 1] = (index * 13 + seed * 3) & 0xff;
    pixels[index * 3 + 2] = (seed * 31) & 0xff;
  }
  return pixels;
}

/** A valid 8-bit RGB PNG (IHDR, one IDAT, IEND) of the given pixels. */
export function encodePng(width: number, height: number, pixels: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // colour type RGB
  const rows: Buffer[] = [];
  for (let row = 0; row < height; row += 1) {
    // Filter type 0 (none) before every scanline.
    rows.push(Buffer.from([0]), pixels.subarray(row * width * 3, (row + 1) * width * 3));
  }
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Reads back a PNG written by `encodePng`, checking the signature and every chunk's CRC. */
export function decodePng(bytes: Buffer): { width: number; height: number; pixels: Buffer } {
  if (!bytes.subarray(0, 8).equals(signature)) throw new Error('not a PNG signature');
  let offset = 8;
  let width = 0;
  let height = 0;
  const data: Buffer[] = [];
  while (offset < bytes.length) {
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const body = bytes.subarray(offset + 4, offset + 8 + length);
    if (bytes.readUInt32BE(offset + 8 + length) !== crc32(body))
      throw new Error(`bad CRC in ${type}`);
    const content = body.subarray(4);
    if (type === 'IHDR') {
      width = content.readUInt32BE(0);
      height = content.readUInt32BE(4);
    } else if (type === 'IDAT') data.push(content);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(data));
  const pixels = Buffer.alloc(width * height * 3);
  for (let row = 0; row < height; row += 1) {
    if (raw[row * (width * 3 + 1)] !== 0) throw new Error('only filter type 0 is read here');
    raw.copy(pixels, row * width * 3, row * (width * 3 + 1) + 1, (row + 1) * (width * 3 + 1));
  }
  return { width, height, pixels };
}

/** A minimal baseline JPEG (SOI, JFIF APP0, a comment naming `label`, EOI). */
export function jpegBytes(label: string): Buffer {
  const app0 = Buffer.from([
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01,
    0x00, 0x00,
  ]);
  const text = Buffer.from(label, 'latin1');
  const comment = Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), text]);
  comment.writeUInt16BE(text.length + 2, 2);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, comment, Buffer.from([0xff, 0xd9])]);
}
