/**
 * The transcription upload scenario (docs/performance.md): 20 clients each upload a 25 MiB WAV at
 * once to POST /v1/audio/transcriptions, and the gateway's RSS is sampled throughout. The gateway
 * streams each upload to a spool file and from there to the upstream, so its peak should stay near
 * its idle RSS plus the chunks in flight, far from 20 × 25 MiB.
 */
import { request } from 'node:http';

import { rssKb, sampleRss } from './bench-process.ts';

export const TRANSCRIPTION_UPLOADS_ID = 'transcription-uploads';
export const TRANSCRIPTION_MODEL_ID = 'bench-whisper';

export interface TranscriptionUploads {
  uploads: number;
  fileBytes: number;
  ok: number;
  failures: string[];
  seconds: number;
  idleRssMb: number;
  peakRssMb: number;
  /** What 20 files held in memory at once would add. */
  filesTotalMb: number;
}

const FILE_BYTES = 25 * 1024 * 1024;
const UPLOADS = 20;
const SLICE = 64 * 1024;

/** A 25 MiB WAV at 22 050 bytes/s (19:48 of 8-bit mono silence). */
function wavOf(fileBytes: number): Buffer {
  const wav = Buffer.alloc(fileBytes, 0x80);
  wav.write('RIFF', 0, 'latin1');
  wav.writeUInt32LE(fileBytes - 8, 4);
  wav.write('WAVEfmt ', 8, 'latin1');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(22_050, 24);
  wav.writeUInt32LE(22_050, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write('data', 36, 'latin1');
  wav.writeUInt32LE(fileBytes - 44, 40);
  return wav;
}

/** One upload, written slice by slice with back-pressure, as a client streaming from disk. */
function upload(port: number, token: string, key: string, wav: Buffer): Promise<string> {
  const boundary = `bench-${key}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\n${TRANSCRIPTION_MODEL_ID}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.wav"\r\n` +
      'Content-Type: audio/wav\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve) => {
    const call = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/audio/transcriptions',
        headers: {
          authorization: `Bearer ${token}`,
          'idempotency-key': key,
          'content-type': `multipart/form-data; boundary=${boundary}`,
          'content-length': head.length + wav.length + tail.length,
        },
      },
      (answer) => {
        let body = '';
        answer.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        answer.on('end', () =>
          resolve(answer.statusCode === 200 ? '' : `${answer.statusCode} ${body}`),
        );
      },
    );
    call.on('error', (error) => resolve(error.message));
    let offset = 0;
    const writeMore = () => {
      while (offset < wav.length) {
        const slice = wav.subarray(offset, offset + SLICE);
        offset += slice.length;
        if (!call.write(slice)) {
          call.once('drain', writeMore);
          return;
        }
      }
      call.end(tail);
    };
    call.write(head);
    writeMore();
  });
}

export async function measureTranscriptionUploads(gateway: {
  pid: number;
  port: number;
  token: string;
}): Promise<TranscriptionUploads> {
  const wav = wavOf(FILE_BYTES);
  // One upload first, so the route's code and the pools are warm before the idle figure.
  const warm = await upload(gateway.port, gateway.token, `bench-warm-${Date.now()}`, wav);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idleKb = rssKb(gateway.pid);
  const sampler = sampleRss(gateway.pid, 20);
  const started = process.hrtime.bigint();
  const results = await Promise.all(
    Array.from({ length: UPLOADS }, (_, index) =>
      upload(gateway.port, gateway.token, `bench-${Date.now()}-${index}`, wav),
    ),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rss = sampler.stop();
  const failures = [warm, ...results].filter((result) => result !== '');
  return {
    uploads: UPLOADS,
    fileBytes: FILE_BYTES,
    ok: results.filter((result) => result === '').length,
    failures: [...new Set(failures)].slice(0, 5),
    seconds,
    idleRssMb: idleKb / 1024,
    peakRssMb: rss.peakKb / 1024,
    filesTotalMb: (UPLOADS * FILE_BYTES) / (1024 * 1024),
  };
}
