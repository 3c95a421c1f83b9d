import { rm } from 'node:fs/promises';
import path from 'node:path';

import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

import type { Authenticator } from '../../auth/authenticator.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { bindCompletionFields } from '../../http/completion-log-fields.ts';
import { acceptBody } from '../../http/defer-continue.ts';
import { readKeyHeader } from '../../http/read-key-header.ts';
import { requireToken } from '../../http/require-token.ts';
import { fingerprintRequest } from '../../idempotency/fingerprint-request.ts';
import type {
  IdempotencyService,
  IdempotentOperation,
} from '../../idempotency/idempotency-service.ts';
import { randomHex } from '../../shared/random-hex.ts';
import { readTranscriptionForm } from './read-transcription-form.ts';
import { requireMultipartHeader } from './require-multipart-header.ts';
import { transcriptionLimits } from './transcription-limits.ts';
import {
  transcriptionHeadersSchema,
  transcriptionRequestSchema,
  transcriptionResponseSchema,
} from './transcription-schema.ts';
import type { TranscriptionService } from './transcription-service.ts';
import { paymentRequiredResponse } from '../../wire/payment-required-schema.ts';

export interface TranscriptionRouteDependencies {
  authenticator: Authenticator;
  transcription: TranscriptionService;
  idempotency: IdempotencyService;
  operation: IdempotentOperation;
  /** Where uploads are written while their request runs (docs/decisions/0065). */
  spoolDirectory: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    transcriptionKey?: string;
  }
}

/** POST /v1/audio/transcriptions (operationId createAudioTranscription). */
export async function transcriptionRoutes(
  app: FastifyInstance,
  dependencies: TranscriptionRouteDependencies,
): Promise<void> {
  const { transcription, idempotency, operation, spoolDirectory } = dependencies;
  const authenticate = requireToken(dependencies.authenticator, 'audio:create');

  // Only this route's scope reads multipart bodies. busboy's own file limit sits one byte past
  // the contract's, so the spooler sees the byte that crosses 25 MiB and refuses it (413).
  await app.register(multipart, {
    limits: {
      files: 1,
      fields: 8,
      parts: 9,
      fieldSize: transcriptionLimits.maxFieldBytes,
      fileSize: transcriptionLimits.maxFileBytes + 1,
      headerPairs: 32,
    },
  });
  app.addContentTypeParser('*', (_request, _payload, done) => {
    done(new ApiError('unsupported_media_type', 'Send the transcription as multipart/form-data.'));
  });

  app.post(
    '/v1/audio/transcriptions',
    {
      onRequest: [
        authenticate,
        async (request: FastifyRequest) => {
          request.transcriptionKey = readKeyHeader(
            request,
            'Idempotency-Key',
            transcriptionLimits.idempotencyKey,
            {
              required: true,
            },
          );
          requireMultipartHeader(request.headers['content-type']);
        },
      ],
      schema: {
        operationId: 'createAudioTranscription',
        consumes: ['multipart/form-data'],
        headers: transcriptionHeadersSchema,
        body: transcriptionRequestSchema,
        response: { 200: transcriptionResponseSchema, ...paymentRequiredResponse('A') },
      },
      // The parts are checked while they stream (read-transcription-form.ts) and the header in
      // onRequest; the schemas describe them in /openapi.json.
      validatorCompiler: () => () => true,
      // The answer is sent as stored, so a replay is the same bytes.
      serializerCompiler: () => (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const principal = request.principal as NonNullable<FastifyRequest['principal']>;
      const key = request.transcriptionKey as string;
      acceptBody(request.raw);
      const spoolPath = path.join(spoolDirectory, `${randomHex(16)}.upload`);
      let outcome;
      try {
        const form = await readTranscriptionForm(request.parts(), spoolPath);
        // "Repeat a key only with the same request" (docs/transcription.md); the file counts by its
        // hash.
        const fingerprint = fingerprintRequest({
          operation: operation.name,
          headers: {},
          body: { ...form.parameters, file_sha256: form.audio.sha256 },
        });
        outcome = await idempotency.run(
          { accountId: principal.account.id, operation, key, fingerprint },
          async () => {
            const result = await transcription.transcribe({
              form,
              principal,
              requestId: request.id,
              onCharged: (fields) => bindCompletionFields(request, { ...fields, outcome: 'ok' }),
            });
            return {
              status: 200,
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(result),
            };
          },
        );
      } finally {
        // Gone before the answer leaves: the file lives only while its request runs.
        await rm(spoolPath, { force: true });
      }
      const { answer, replayed } = outcome;
      reply.headers(answer.headers);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(answer.status).send(answer.body);
    },
  );
}
