import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable } from 'node:stream';

import { ApiError } from '../../canonical/generation-error.ts';
import { parseWavHeader, type WavHeader } from './parse-wav-header.ts';
import { transcriptionLimits } from './transcription-limits.ts';

/** An upload written to its spool file, with what was learnt while it passed. */
export interface SpooledAudio {
  path: string;
  bytes: number;
  /** Hex sha256 of the file's bytes (the idempotency fingerprint carries it). */
  sha256: string;
  header: WavHeader;
}

/**
 * Streams an uploaded file to `path` while hashing it, counting its bytes and reading its WAV
 * header (docs/transcription.md). Each chunk is held once, on its way to the disk; only the first
 * bytes are kept until the header is read. Refuses as soon as the bytes say so, without reading the
 * rest: not WAV → 400 `unsupported_audio_format`; over 25 MiB → 413; over 20 minutes by the
 * header → 413 `audio_too_long` (docs/decisions/0066); a truncated or inconsistent header → 400
 * `invalid_audio`. The caller removes the file, whatever the outcome.
 */
export async function spoolAudioUpload(file: Readable, path: string): Promise<SpooledAudio> {
  const { maxFileBytes, headerLookaheadBytes } = transcriptionLimits;
  const output = createWriteStream(path, { flags: 'wx' });
  const hash = createHash('sha256');
  const prefix: Buffer[] = [];
  let prefixBytes = 0;
  let header: WavHeader | undefined;
  let bytes = 0;
  try {
    for await (const chunk of file as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      if (bytes > maxFileBytes) {
        throw new ApiError(
          'request_too_large',
          `The file is larger than ${maxFileBytes} bytes (25 MiB).`,
        );
      }
      if (header === undefined) {
        prefix.push(chunk);
        prefixBytes += chunk.length;
        header = readHeader(Buffer.concat(prefix, prefixBytes), false);
        if (header === undefined && prefixBytes > headerLookaheadBytes) {
          throw new ApiError(
            'invalid_audio',
            `The WAV header does not reach its "data" chunk within the first ${headerLookaheadBytes} bytes.`,
          );
        }
        if (header !== undefined) prefix.length = 0;
      }
      hash.update(chunk);
      if (!output.write(chunk)) await once(output, 'drain');
    }
    header ??= readHeader(Buffer.concat(prefix, prefixBytes), true);
    if (header === undefined) throw new Error('a complete header is always read or refused');
    if (header.dataOffset + header.dataBytes > bytes) {
      throw new ApiError(
        'invalid_audio',
        `The WAV header declares ${header.dataBytes} bytes of audio, but the file ends after ${bytes - header.dataOffset}.`,
      );
    }
    output.end();
    await once(output, 'close');
  } catch (error) {
    // Closed before the caller removes the file, or a late open would create it again.
    if (!output.closed) {
      const closed = once(output, 'close').catch(() => undefined);
      output.destroy();
      await closed;
    }
    throw error;
  }
  return { path, bytes, sha256: hash.digest('hex'), header };
}

/** The header once the bytes hold it; undefined while more are needed; throws a refusal. */
function readHeader(prefix: Buffer, complete: boolean): WavHeader | undefined {
  const result = parseWavHeader(prefix, { complete });
  switch (result.kind) {
    case 'incomplete':
      return undefined;
    case 'not-wav':
      throw new ApiError(
        'unsupported_audio_format',
        `The file is not a WAV file (${result.reason}); only WAV audio is accepted.`,
      );
    case 'invalid':
      throw new ApiError('invalid_audio', `The WAV header is not usable: ${result.reason}.`);
    case 'wav': {
      const { maxDurationSeconds } = transcriptionLimits;
      if (result.header.durationSeconds > maxDurationSeconds) {
        throw new ApiError(
          'audio_too_long',
          `The audio lasts ${formatDuration(result.header.durationSeconds)} by its header, longer than ${formatDuration(maxDurationSeconds)}.`,
        );
      }
      return result.header;
    }
    default:
      return result satisfies never;
  }
}

/** m:ss with hundredths when not whole, e.g. 20:00 or 20:00.01. */
function formatDuration(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds - minutes * 60;
  const text = Number.isInteger(rest) ? String(rest) : rest.toFixed(2);
  return `${minutes}:${rest < 10 ? '0' : ''}${text}`;
}
