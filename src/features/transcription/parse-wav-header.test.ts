import { describe, expect, it } from 'vitest';

import { buildWav, listInfoChunk, mp3Bytes } from '../../../test/transcription/build-wav.ts';
import { parseWavHeader } from './parse-wav-header.ts';

const complete = { complete: true };

describe('parseWavHeader (RIFF chunk walk)', () => {
  it('reads a plain PCM header: format, data offset and size, duration', () => {
    const result = parseWavHeader(buildWav({ sampleRate: 8000, seconds: 2 }), complete);
    expect(result).toEqual({
      kind: 'wav',
      header: {
        formatTag: 1,
        extensible: false,
        channels: 1,
        sampleRate: 8000,
        byteRate: 8000,
        blockAlign: 1,
        bitsPerSample: 8,
        dataOffset: 44,
        dataBytes: 16000,
        durationSeconds: 2,
      },
    });
  });

  it('skips a LIST chunk (odd size, padded) before fmt and between fmt and data', () => {
    for (const chunksFirst of [false, true]) {
      const wav = buildWav({ seconds: 3, extraChunks: [listInfoChunk('odd')], chunksFirst });
      const result = parseWavHeader(wav, complete);
      expect(result.kind).toBe('wav');
      if (result.kind !== 'wav') continue;
      expect(result.header.durationSeconds).toBe(3);
      expect(
        wav.toString('latin1', result.header.dataOffset - 8, result.header.dataOffset - 4),
      ).toBe('data');
    }
  });

  it('reads WAVE_FORMAT_EXTENSIBLE as its PCM sub-format', () => {
    const result = parseWavHeader(
      buildWav({ extensible: true, channels: 2, bitsPerSample: 16, sampleRate: 16000, seconds: 1 }),
      complete,
    );
    expect(result).toMatchObject({
      kind: 'wav',
      header: { formatTag: 1, extensible: true, byteRate: 64000, durationSeconds: 1 },
    });
  });

  it('says incomplete while the header is still arriving, and invalid once the file ended', () => {
    const wav = buildWav({ extraChunks: [listInfoChunk('x'.repeat(200))] });
    for (const length of [0, 3, 11, 12, 30, 60, 100, 250]) {
      expect(parseWavHeader(wav.subarray(0, length), { complete: false })).toEqual({
        kind: 'incomplete',
      });
      expect(parseWavHeader(wav.subarray(0, length), complete).kind).toBe('invalid');
    }
  });

  it('refuses other files at their first bytes: MP3, RIFF of another form, text', () => {
    expect(parseWavHeader(mp3Bytes().subarray(0, 2), { complete: false }).kind).toBe('not-wav');
    const avi = buildWav();
    avi.write('AVI ', 8, 'latin1');
    expect(parseWavHeader(avi.subarray(0, 10), { complete: false }).kind).toBe('not-wav');
    expect(parseWavHeader(Buffer.from('hello world, not audio'), complete).kind).toBe('not-wav');
  });

  it('refuses inconsistent headers, naming what disagrees', () => {
    const cases = [
      buildWav({ byteRate: 12345 }),
      buildWav({ blockAlign: 3 }),
      buildWav({ sampleRate: 0 }),
      buildWav({ channels: 0, blockAlign: 1 }),
      buildWav({ dataBytes: 9, channels: 2, blockAlign: 2, byteRate: 200 }),
    ];
    for (const wav of cases) expect(parseWavHeader(wav, complete).kind).toBe('invalid');
    const dataFirst = buildWav();
    // Swap: a data chunk where the fmt chunk belongs.
    dataFirst.write('data', 12, 'latin1');
    expect(parseWavHeader(dataFirst, complete)).toMatchObject({
      kind: 'invalid',
      reason: expect.stringContaining('before the "fmt " chunk'),
    });
    const shortFmt = buildWav();
    shortFmt.writeUInt32LE(12, 16);
    expect(parseWavHeader(shortFmt, complete).kind).toBe('invalid');
  });

  it('takes the declared data size for the duration: 20:00 and 20:01 at 100 bytes/s', () => {
    const header = (seconds: number) =>
      parseWavHeader(buildWav({ seconds: 0, declaredDataBytes: seconds * 100 }).subarray(0, 44), {
        complete: false,
      });
    expect(header(1200)).toMatchObject({ kind: 'wav', header: { durationSeconds: 1200 } });
    expect(header(1201)).toMatchObject({ kind: 'wav', header: { durationSeconds: 1201 } });
  });
});
