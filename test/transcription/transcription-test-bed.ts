import { readdir } from 'node:fs/promises';

import type { LightMyRequestResponse } from 'fastify';

import { transcriptionSpoolDirectory } from '../../src/features/transcription/compose-transcription.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import {
  startFakeTranscriptionUpstream,
  type FakeTranscriptionUpstream,
} from './fake-transcription-upstream.ts';

export interface TranscriptionBed {
  /** One fake per deployment of the model `whisper-test`, in order. */
  upstreams: FakeTranscriptionUpstream[];
  gateway: TestGateway;
  /** Files in the spool directory now. */
  spoolFiles(): Promise<string[]>;
  close(): Promise<void>;
}

export const upstreamKey = 'transcription-upstream-key';

/**
 * A gateway with one transcription model, `whisper-test`, deployed on one fake per entry of
 * `deployments` (tried in that order); 0.0001 credits per second of audio (100 micro-credits).
 */
export async function startTranscriptionBed(
  options: {
    deployments?: number;
    pricing?: Record<string, number>;
    /** Replaces a deployment's fake address, e.g. with one nothing listens on. */
    baseUrls?: Array<string | undefined>;
    /** The variable every deployment's key is read from; the bed sets only its own. */
    apiKeyEnv?: string;
    config?: Record<string, unknown>;
  } = {},
): Promise<TranscriptionBed> {
  const count = options.deployments ?? 1;
  const upstreams = await Promise.all(
    Array.from({ length: count }, () => startFakeTranscriptionUpstream()),
  );
  const providers: Record<string, unknown> = {};
  upstreams.forEach((upstream, index) => {
    providers[`audio-${index}`] = {
      kind: 'openai-transcription',
      baseUrl: options.baseUrls?.[index] ?? upstream.url,
      apiKeyEnv: options.apiKeyEnv ?? 'AUDIO_UPSTREAM_KEY',
    };
  });
  const gateway = await startTestGateway(
    {
      ...options.config,
      providers,
      transcription: {
        models: [
          {
            id: 'whisper-test',
            deployments: upstreams.map((_, index) => ({
              provider: `audio-${index}`,
              upstreamModel: `whisper-upstream-${index}`,
            })),
            pricing: options.pricing ?? { perSecond: 0.0001 },
          },
        ],
      },
    },
    { env: { AUDIO_UPSTREAM_KEY: upstreamKey } },
  );
  const spool = transcriptionSpoolDirectory(gateway.config.dataDir);
  return {
    upstreams,
    gateway,
    spoolFiles: () => readdir(spool),
    async close() {
      await gateway.close();
      await Promise.all(upstreams.map((upstream) => upstream.close()));
    },
  };
}

export interface FormPart {
  name: string;
  value: string | Buffer;
  /** Sends the part as a file with this filename. */
  filename?: string;
  contentType?: string;
}

/** A multipart/form-data body built by hand, so tests control part order and content exactly. */
export function buildForm(parts: FormPart[]): { body: Buffer; contentType: string } {
  const boundary = `----switchyard-test-${Math.random().toString(16).slice(2)}`;
  const pieces: Buffer[] = [];
  for (const part of parts) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.filename !== undefined || part.contentType !== undefined)
      head += `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n`;
    pieces.push(Buffer.from(`${head}\r\n`), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  pieces.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(pieces), contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The usual request: the WAV as `file`, then `model` (and any other text parts). */
export function transcriptionForm(
  wav: Buffer,
  fields: Record<string, string> = { model: 'whisper-test' },
): FormPart[] {
  return [
    { name: 'file', value: wav, filename: 'speech.wav', contentType: 'audio/wav' },
    ...Object.entries(fields).map(([name, value]) => ({ name, value })),
  ];
}

export function postTranscription(
  gateway: TestGateway,
  headers: Record<string, string>,
  parts: FormPart[],
): Promise<LightMyRequestResponse> {
  const { body, contentType } = buildForm(parts);
  return gateway.app.inject({
    method: 'POST',
    url: '/v1/audio/transcriptions',
    headers: { 'content-type': contentType, ...headers },
    payload: body,
  });
}

export function credentials(token: string, key: string): Record<string, string> {
  return { authorization: `Bearer ${token}`, 'idempotency-key': key };
}
