import { connect } from 'node:net';

import { describe, expect, it } from 'vitest';

import { useTestBed } from '../support/use-test-bed.ts';
import { buildWav, listInfoChunk, mp3Bytes } from './build-wav.ts';
import {
  buildForm,
  credentials,
  postTranscription,
  startTranscriptionBed,
  transcriptionForm,
} from './transcription-test-bed.ts';

const credits = 10_000_000;
const maxFileBytes = 25 * 1024 * 1024;

/** A WAV of exactly `fileBytes` bytes at 22 050 bytes/s (25 MiB is then 19:48 of audio). */
function wavOfSize(fileBytes: number): Buffer {
  return buildWav({ sampleRate: 22_050, dataBytes: fileBytes - 44, fill: () => 0x80 });
}

describe('transcription limits at their boundaries', () => {
  const bed = useTestBed(() => startTranscriptionBed());
  const calls = () => bed.upstreams[0]?.requests.length ?? 0;
  const post = async (parts: Parameters<typeof postTranscription>[2], key: string) => {
    const { token } = await bed.gateway.createToken({ credits });
    return postTranscription(bed.gateway, credentials(token, key), parts);
  };

  it('accepts a file of exactly 25 MiB and refuses one byte more with 413', async () => {
    const exact = wavOfSize(maxFileBytes);
    expect(exact.length).toBe(26_214_400);
    const accepted = await post(transcriptionForm(exact), 'size-exact');
    expect(accepted.statusCode).toBe(200);
    expect(bed.upstreams[0]?.requests.at(-1)?.fileBytes).toBe(maxFileBytes);

    const before = calls();
    const over = await post(transcriptionForm(wavOfSize(maxFileBytes + 1)), 'size-over');
    expect(over.statusCode).toBe(413);
    expect(over.json().error.message).toContain('25 MiB');
    expect(calls()).toBe(before);
    expect(await bed.spoolFiles()).toEqual([]);
  });

  it('accepts 20:00 of audio and refuses 20:01 with 413 audio_too_long, before any upstream call', async () => {
    const twenty = await post(transcriptionForm(buildWav({ seconds: 1200 })), 'length-20-00');
    expect(twenty.statusCode).toBe(200);
    const before = calls();
    const longer = await post(transcriptionForm(buildWav({ seconds: 1201 })), 'length-20-01');
    expect(longer.statusCode).toBe(413);
    expect(longer.json().error).toMatchObject({ code: 'audio_too_long' });
    expect(longer.json().error.message).toContain('20:01');
    expect(calls()).toBe(before);
  });

  it('accepts a LIST chunk before data and before fmt, and WAVE_FORMAT_EXTENSIBLE', async () => {
    const files = [
      buildWav({ seconds: 3, extraChunks: [listInfoChunk('title')] }),
      buildWav({ seconds: 3, extraChunks: [listInfoChunk('first')], chunksFirst: true }),
      buildWav({ seconds: 1, extensible: true, channels: 2, bitsPerSample: 16, sampleRate: 800 }),
    ];
    for (const [index, wav] of files.entries()) {
      const response = await post(transcriptionForm(wav), `chunks-${index}`);
      expect(response.statusCode).toBe(200);
      expect(bed.upstreams[0]?.requests.at(-1)?.fileBytes).toBe(wav.length);
    }
  });

  it('refuses an MP3 sent as .wav (400 unsupported_audio_format) and a truncated or inconsistent header (400)', async () => {
    const before = calls();
    const mp3 = await post(
      [{ name: 'file', value: mp3Bytes(), filename: 'song.wav', contentType: 'audio/wav' }],
      'mp3',
    );
    expect(mp3.statusCode).toBe(400);
    expect(mp3.json().error.code).toBe('unsupported_audio_format');

    const truncated = await post(transcriptionForm(buildWav().subarray(0, 30)), 'truncated');
    expect(truncated.statusCode).toBe(400);
    expect(truncated.json().error.code).toBe('invalid_audio');

    // The header promises 10 s, the file holds 2 s of it.
    const short = await post(
      transcriptionForm(buildWav({ seconds: 2, declaredDataBytes: 1000 })),
      'short-data',
    );
    expect(short.statusCode).toBe(400);
    expect(short.json().error.message).toContain('declares 1000 bytes');

    const inconsistent = await post(transcriptionForm(buildWav({ byteRate: 999 })), 'rate');
    expect(inconsistent.statusCode).toBe(400);
    expect(inconsistent.json().error.message).toContain('byte rate 999');
    expect(calls()).toBe(before);
    expect(await bed.spoolFiles()).toEqual([]);
  });

  it('names unknown parts, a missing model or file, an unknown model and another response_format', async () => {
    const wav = buildWav({ seconds: 1 });
    const cases: Array<[Parameters<typeof postTranscription>[2], string]> = [
      [transcriptionForm(wav, { model: 'whisper-test', temperature: '0' }), '"temperature"'],
      [transcriptionForm(wav, {}), '"model" is required'],
      [[{ name: 'model', value: 'whisper-test' }], '"file" is required'],
      [transcriptionForm(wav, { model: 'gpt-nothing' }), '"gpt-nothing"'],
      [transcriptionForm(wav, { model: 'whisper-test', response_format: 'srt' }), '"srt"'],
      [
        [
          { name: 'file', value: 'not a file' },
          { name: 'model', value: 'whisper-test' },
        ],
        'file',
      ],
    ];
    const before = calls();
    for (const [index, [parts, named]] of cases.entries()) {
      const response = await post(parts, `parts-${index}`);
      expect(response.statusCode, named).toBe(400);
      expect(response.json().error.message).toContain(named);
    }
    expect(calls()).toBe(before);
  });

  it('checks the Idempotency-Key (1 to 80 characters) before the body, and wants multipart', async () => {
    const { token } = await bed.gateway.createToken({ credits });
    const parts = transcriptionForm(buildWav({ seconds: 1 }));
    const withKey = (key: string | undefined) =>
      postTranscription(
        bed.gateway,
        key === undefined ? { authorization: `Bearer ${token}` } : credentials(token, key),
        parts,
      );
    expect((await withKey('k'.repeat(80))).statusCode).toBe(200);
    for (const key of ['k'.repeat(81), undefined, 'has space']) {
      const response = await withKey(key);
      expect(response.statusCode).toBe(400);
      expect(response.json().error.message).toContain('Idempotency-Key');
    }
    const json = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/audio/transcriptions',
      headers: { ...credentials(token, 'json-body'), 'content-type': 'application/json' },
      payload: '{"model":"whisper-test"}',
    });
    expect(json.statusCode).toBe(415);
    expect(json.json().error.message).toContain('multipart/form-data');
  });

  it('stops reading at the byte past 25 MiB: 413 reaches a client still sending, the spool file is gone', async () => {
    await bed.gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const address = bed.gateway.app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    const { token } = await bed.gateway.createToken({ credits });
    // 64 MiB sent in chunks, so nothing but the bytes themselves can tell the size; at 176 400
    // bytes/s (44.1 kHz, 16-bit stereo) its header says 6:20, well inside the 20 minutes.
    const wav = buildWav({
      sampleRate: 44_100,
      channels: 2,
      bitsPerSample: 16,
      dataBytes: 64 * 1024 * 1024 - 44,
      fill: () => 0,
    });
    const { body } = buildForm(transcriptionForm(wav));
    const boundary = body.subarray(2, body.indexOf('\r\n')).toString('latin1');
    const socket = connect(address.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    let answer = '';
    let closed = false;
    let sent = 0;
    let sentWhenAnswered: number | undefined;
    socket.on('data', (chunk: Buffer) => {
      sentWhenAnswered ??= sent;
      answer += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      closed = true;
    });
    socket.write(
      'POST /v1/audio/transcriptions HTTP/1.1\r\nhost: 127.0.0.1\r\n' +
        `authorization: Bearer ${token}\r\nidempotency-key: stop-reading\r\n` +
        `content-type: multipart/form-data; boundary=${boundary}\r\n` +
        'transfer-encoding: chunked\r\n\r\n',
    );
    const piece = 256 * 1024;
    // Keeps sending after the answer: a gateway that drained the rest would let it all through.
    while (sent < body.length && !closed) {
      const slice = body.subarray(sent, sent + piece);
      // Every piece of the chunk is written, whatever the buffer says: a skipped piece would
      // break the chunked framing and make the answer a 400 parse error instead.
      socket.write(`${slice.length.toString(16)}\r\n`);
      socket.write(slice);
      const flushed = socket.write('\r\n');
      sent += slice.length;
      if (!flushed) {
        await new Promise((resolve) => {
          socket.once('drain', resolve);
          socket.once('close', resolve);
          setTimeout(resolve, 200);
        });
      }
    }
    await new Promise((resolve) => (closed ? resolve(undefined) : socket.once('close', resolve)));
    expect(answer.startsWith('HTTP/1.1 413')).toBe(true);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(answer).toContain('larger than 26214400 bytes');
    // The gateway answered while the client was still sending, and closed the connection
    // rather than read the rest: most of the 64 MiB never left the client.
    expect(sentWhenAnswered).toBeGreaterThan(maxFileBytes);
    expect(sentWhenAnswered).toBeLessThan(body.length);
    expect(sent).toBeLessThan(48 * 1024 * 1024);
    expect(await bed.spoolFiles()).toEqual([]);
  });
});
