/** The image media types the gateway accepts and produces, by their leading bytes. */
const signatures: Array<{ mediaType: string; matches(bytes: Buffer): boolean }> = [
  {
    mediaType: 'image/png',
    matches: (bytes) =>
      bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  },
  {
    mediaType: 'image/jpeg',
    matches: (bytes) =>
      bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff,
  },
  {
    mediaType: 'image/webp',
    matches: (bytes) =>
      bytes.length > 12 &&
      bytes.toString('latin1', 0, 4) === 'RIFF' &&
      bytes.toString('latin1', 8, 12) === 'WEBP',
  },
];

export const acceptedImageMediaTypes = signatures.map((signature) => signature.mediaType);

/** The media type the bytes are, by their magic number; undefined for anything else. */
export function detectImageType(bytes: Buffer): string | undefined {
  return signatures.find((signature) => signature.matches(bytes))?.mediaType;
}

/** The media type of an output format (the request says `jpg`; the media type is image/jpeg). */
export function mediaTypeOfFormat(format: 'png' | 'jpg'): string {
  return format === 'png' ? 'image/png' : 'image/jpeg';
}
