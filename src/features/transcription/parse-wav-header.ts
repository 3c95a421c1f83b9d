/** What the `fmt ` chunk and the `data` chunk header of a RIFF/WAVE file say. */
export interface WavHeader {
  /** WAVE_FORMAT_* tag; for WAVE_FORMAT_EXTENSIBLE, the sub-format's tag. */
  formatTag: number;
  extensible: boolean;
  channels: number;
  sampleRate: number;
  /** Average bytes per second. */
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
  /** Where the audio samples start in the file. */
  dataOffset: number;
  /** The `data` chunk's declared size. */
  dataBytes: number;
  /** dataBytes ÷ byteRate. */
  durationSeconds: number;
}

export type WavHeaderResult =
  | { kind: 'wav'; header: WavHeader }
  /** The bytes so far are a WAV start; more are needed to reach the `data` chunk header. */
  | { kind: 'incomplete' }
  | { kind: 'not-wav'; reason: string }
  | { kind: 'invalid'; reason: string };

const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

/** Formats whose block is a whole frame of samples, so the header's numbers must agree. */
const FRAME_FORMATS = new Set([
  0x0001, // PCM
  0x0003, // IEEE float
  0x0006, // A-law
  0x0007, // µ-law
]);

/** KSDATAFORMAT_SUBTYPE_* GUIDs end in these 14 bytes after the 16-bit format tag. */
const SUBTYPE_GUID_TAIL = Buffer.from([
  0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xaa, 0x00, 0x38, 0x9b, 0x71,
]);

const RIFF = Buffer.from('RIFF', 'latin1');
const WAVE = Buffer.from('WAVE', 'latin1');

/**
 * Reads a WAV header from the first bytes of a file by walking its RIFF chunks: `fmt ` must
 * come before `data`, and any other chunk (`LIST`, `fact`, `bext`, …) before either is skipped
 * by its declared size (plus the pad byte of an odd size). `complete` says the bytes are the
 * whole file, so an unfinished header is truncated rather than incomplete.
 *
 * Pure: the caller decides what each outcome means (docs/transcription.md).
 */
export function parseWavHeader(bytes: Uint8Array, options: { complete: boolean }): WavHeaderResult {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const truncated = (where: string): WavHeaderResult =>
    options.complete
      ? { kind: 'invalid', reason: `the file ends inside ${where}` }
      : { kind: 'incomplete' };

  // The RIFF magic and the WAVE form type are compared as soon as their bytes are there, so a
  // file of another kind is refused at its first bytes.
  const riffSeen = Math.min(4, buffer.length);
  if (!buffer.subarray(0, riffSeen).equals(RIFF.subarray(0, riffSeen)))
    return { kind: 'not-wav', reason: 'it does not start with "RIFF"' };
  if (buffer.length > 8) {
    const waveSeen = Math.min(4, buffer.length - 8);
    if (!buffer.subarray(8, 8 + waveSeen).equals(WAVE.subarray(0, waveSeen)))
      return { kind: 'not-wav', reason: 'its RIFF form type is not "WAVE"' };
  }
  if (buffer.length < 12) return truncated('the RIFF header');

  let offset = 12;
  let format: Omit<WavHeader, 'dataOffset' | 'dataBytes' | 'durationSeconds'> | undefined;
  for (;;) {
    if (buffer.length < offset + 8) return truncated('a chunk header');
    const id = buffer.toString('latin1', offset, offset + 4);
    const size = buffer.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'data') {
      if (format === undefined)
        return { kind: 'invalid', reason: 'the "data" chunk comes before the "fmt " chunk' };
      if (FRAME_FORMATS.has(format.formatTag) && size % format.blockAlign !== 0)
        return {
          kind: 'invalid',
          reason: `the "data" size ${size} is not a whole number of ${format.blockAlign}-byte frames`,
        };
      return {
        kind: 'wav',
        header: {
          ...format,
          dataOffset: body,
          dataBytes: size,
          durationSeconds: size / format.byteRate,
        },
      };
    }
    if (id === 'fmt ') {
      if (format !== undefined) return { kind: 'invalid', reason: 'two "fmt " chunks' };
      if (buffer.length < body + size) return truncated('the "fmt " chunk');
      const read = readFormat(buffer.subarray(body, body + size));
      if (typeof read === 'string') return { kind: 'invalid', reason: read };
      format = read;
    }
    offset = body + size + (size % 2);
  }
}

/** The `fmt ` chunk's fields, or why they cannot describe audio. */
function readFormat(
  chunk: Buffer,
): Omit<WavHeader, 'dataOffset' | 'dataBytes' | 'durationSeconds'> | string {
  if (chunk.length < 16) return `the "fmt " chunk has ${chunk.length} bytes, fewer than 16`;
  let formatTag = chunk.readUInt16LE(0);
  const channels = chunk.readUInt16LE(2);
  const sampleRate = chunk.readUInt32LE(4);
  const byteRate = chunk.readUInt32LE(8);
  const blockAlign = chunk.readUInt16LE(12);
  const bitsPerSample = chunk.readUInt16LE(14);
  const extensible = formatTag === WAVE_FORMAT_EXTENSIBLE;
  if (extensible) {
    // WAVEFORMATEXTENSIBLE: cbSize 22, valid bits, channel mask, then the sub-format GUID.
    if (chunk.length < 40 || chunk.readUInt16LE(16) < 22)
      return 'WAVE_FORMAT_EXTENSIBLE without its 22 extension bytes';
    if (!chunk.subarray(26, 40).equals(SUBTYPE_GUID_TAIL))
      return 'WAVE_FORMAT_EXTENSIBLE with an unknown sub-format';
    formatTag = chunk.readUInt16LE(24);
  }
  if (channels === 0) return 'the header declares 0 channels';
  if (sampleRate === 0) return 'the header declares a sample rate of 0';
  if (byteRate === 0) return 'the header declares a byte rate of 0';
  if (blockAlign === 0) return 'the header declares a block size of 0';
  if (FRAME_FORMATS.has(formatTag)) {
    if (bitsPerSample === 0) return 'the header declares 0 bits per sample';
    const frame = channels * Math.ceil(bitsPerSample / 8);
    if (blockAlign !== frame)
      return `the block size ${blockAlign} is not ${channels} channels × ${bitsPerSample} bits`;
    if (byteRate !== sampleRate * blockAlign)
      return `the byte rate ${byteRate} is not ${sampleRate} Hz × ${blockAlign}-byte frames`;
  }
  return { formatTag, extensible, channels, sampleRate, byteRate, blockAlign, bitsPerSample };
}
