/** What a generated WAV file looks like; every field has a small, valid default. */
export interface WavOptions {
  /** Seconds of audio at the byte rate (data bytes = seconds × byte rate), unless `dataBytes`. */
  seconds?: number;
  dataBytes?: number;
  /** The `data` chunk's declared size when it should differ from the bytes written. */
  declaredDataBytes?: number;
  sampleRate?: number;
  channels?: number;
  bitsPerSample?: number;
  /** WAVE_FORMAT_EXTENSIBLE with the PCM sub-format. */
  extensible?: boolean;
  /** Chunks written between `fmt ` and `data` (or before `fmt ` with `chunksFirst`). */
  extraChunks?: Array<{ id: string; body: Buffer }>;
  chunksFirst?: boolean;
  /** Overrides of the `fmt ` fields, to make a header inconsistent. */
  byteRate?: number;
  blockAlign?: number;
  /** Fills the samples (default: a repeating ramp, so bytes differ along the file). */
  fill?: (index: number) => number;
}

function chunk(id: string, body: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(id, 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body, body.length % 2 === 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** A RIFF/WAVE file built in memory for tests: 8-bit mono at 100 Hz by default (100 bytes/s). */
export function buildWav(options: WavOptions = {}): Buffer {
  const sampleRate = options.sampleRate ?? 100;
  const channels = options.channels ?? 1;
  const bitsPerSample = options.bitsPerSample ?? 8;
  const blockAlign = options.blockAlign ?? channels * Math.ceil(bitsPerSample / 8);
  const byteRate = options.byteRate ?? sampleRate * blockAlign;
  const fmt = Buffer.alloc(options.extensible === true ? 40 : 16);
  fmt.writeUInt16LE(options.extensible === true ? 0xfffe : 1, 0);
  fmt.writeUInt16LE(channels, 2);
  fmt.writeUInt32LE(sampleRate, 4);
  fmt.writeUInt32LE(byteRate, 8);
  fmt.writeUInt16LE(blockAlign, 12);
  fmt.writeUInt16LE(bitsPerSample, 14);
  if (options.extensible === true) {
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(bitsPerSample, 18);
    fmt.writeUInt32LE(channels === 1 ? 0x4 : 0x3, 20);
    // KSDATAFORMAT_SUBTYPE_PCM: 00000001-0000-0010-8000-00aa00389b71
    Buffer.from('0100000000001000800000aa00389b71', 'hex').copy(fmt, 24);
  }
  const dataBytes = options.dataBytes ?? Math.round((options.seconds ?? 1) * byteRate);
  const samples = Buffer.alloc(dataBytes);
  const fill = options.fill ?? ((index: number) => (index * 7) & 0xff);
  for (let index = 0; index < dataBytes; index += 1) samples[index] = fill(index);
  const data = chunk('data', samples);
  if (options.declaredDataBytes !== undefined) data.writeUInt32LE(options.declaredDataBytes, 4);
  const extra = (options.extraChunks ?? []).map((entry) => chunk(entry.id, entry.body));
  const chunks =
    options.chunksFirst === true
      ? [...extra, chunk('fmt ', fmt), data]
      : [chunk('fmt ', fmt), ...extra, data];
  const body = Buffer.concat([Buffer.from('WAVE', 'latin1'), ...chunks]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

/** A `LIST`/`INFO` chunk as tagging tools write it. */
export function listInfoChunk(title: string): { id: string; body: Buffer } {
  const value = Buffer.from(`${title}\0`, 'latin1');
  const item = chunk('INAM', value);
  return { id: 'LIST', body: Buffer.concat([Buffer.from('INFO', 'latin1'), item]) };
}

/** The first bytes of an MP3 file (an ID3v2 tag, then an MPEG-1 Layer III frame header). */
export function mp3Bytes(length = 4096): Buffer {
  const bytes = Buffer.alloc(length, 0x55);
  Buffer.from('ID3', 'latin1').copy(bytes, 0);
  bytes.set([0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00], 3);
  bytes.set([0xff, 0xfb, 0x90, 0x64], 10);
  return bytes;
}
