import { createHash } from 'node:crypto';

import multipart from '@fastify/multipart';
import Fastify from 'fastify';

/** What the fake received: the text parts, the file's size and sha256 computed as it streamed. */
export interface RecordedTranscription {
  headers: Record<string, string | string[] | undefined>;
  fields: Record<string, string>;
  filename: string | undefined;
  mimetype: string | undefined;
  fileBytes: number;
  fileSha256: string;
}

/** A scripted answer; `destroy` cuts the connection, `usage` replaces the normal usage. */
export interface FakeTranscriptionReply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  destroy?: boolean;
  /** Keeps the answer until this promise settles (a request still running). */
  hold?: Promise<unknown>;
}

export interface FakeTranscriptionUpstream {
  url: string;
  requests: RecordedTranscription[];
  /** Answers the next requests in order; once empty, the normal answer. */
  replies: FakeTranscriptionReply[];
  /** The usage the normal answer reports: duration (whisper-1) or tokens (gpt-4o-transcribe). */
  usage: 'duration' | 'tokens' | 'none';
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible transcription upstream on a loopback port: `POST
 * /v1/audio/transcriptions`, multipart read as a stream (the file is hashed, never kept), and
 * OpenAI's answer `{text, usage}` with usage `{type: "duration", seconds}` or `{type: "tokens",
 * input_tokens, input_token_details, output_tokens, total_tokens}`.
 */
export async function startFakeTranscriptionUpstream(): Promise<FakeTranscriptionUpstream> {
  const requests: RecordedTranscription[] = [];
  const replies: FakeTranscriptionReply[] = [];
  const app = Fastify({ bodyLimit: 64 * 1024 * 1024 });
  await app.register(multipart, { limits: { fileSize: 64 * 1024 * 1024 } });
  const fake: FakeTranscriptionUpstream = {
    url: '',
    requests,
    replies,
    usage: 'duration',
    async close() {
      await app.close();
    },
  };
  app.post('/v1/audio/transcriptions', async (request, reply) => {
    const fields: Record<string, string> = {};
    const recorded: RecordedTranscription = {
      headers: request.headers,
      fields,
      filename: undefined,
      mimetype: undefined,
      fileBytes: 0,
      fileSha256: '',
    };
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        fields[part.fieldname] = String(part.value);
        continue;
      }
      const hash = createHash('sha256');
      for await (const chunk of part.file) {
        hash.update(chunk as Buffer);
        recorded.fileBytes += (chunk as Buffer).length;
      }
      recorded.filename = part.filename;
      recorded.mimetype = part.mimetype;
      recorded.fileSha256 = hash.digest('hex');
    }
    requests.push(recorded);
    const scripted = replies.shift();
    if (scripted?.hold !== undefined) await scripted.hold;
    if (scripted?.destroy === true) {
      request.raw.socket.destroy();
      return reply;
    }
    if (scripted !== undefined) {
      return reply
        .code(scripted.status ?? 200)
        .headers(scripted.headers ?? {})
        .send(scripted.body ?? {});
    }
    if (fields.model === undefined || recorded.fileBytes === 0) {
      return reply.code(400).send({
        error: { message: 'model and file are required', type: 'invalid_request_error' },
      });
    }
    const text = `Transcript of ${recorded.fileBytes} bytes by ${fields.model}.`;
    // The fake reads the WAV's length like a server would: 44-byte header, 100 bytes/s default.
    const seconds = Math.ceil((recorded.fileBytes - 44) / 100);
    const usage =
      fake.usage === 'duration'
        ? { type: 'duration', seconds }
        : fake.usage === 'tokens'
          ? {
              type: 'tokens',
              input_tokens: 30,
              input_token_details: { text_tokens: 10, audio_tokens: 20 },
              output_tokens: 12,
              total_tokens: 42,
            }
          : undefined;
    return reply.send(usage === undefined ? { text } : { text, usage });
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  fake.url = `http://127.0.0.1:${address.port}`;
  return fake;
}
