import { Type, type TSchema } from 'typebox';

import { transcriptionLimits } from './transcription-limits.ts';

/**
 * The multipart body (docs/transcription.md) as JSON Schema, for /openapi.json only: the parts are
 * read and checked as a stream (read-transcription-form.ts), never validated as one object.
 */
export const transcriptionRequestSchema: TSchema = Type.Object(
  {
    file: Type.String({
      contentEncoding: 'binary',
      contentMediaType: 'audio/wav',
      description: `A WAV (RIFF/WAVE) file: at most ${transcriptionLimits.maxFileBytes} bytes (25 MiB) and 20 minutes by its header.`,
    }),
    model: Type.String({ minLength: 1, description: 'The exact id of a transcription model.' }),
    language: Type.Optional(Type.String({ description: 'A hint: the language spoken.' })),
    prompt: Type.Optional(Type.String({ description: 'Context for the transcription.' })),
    response_format: Type.Optional(
      Type.Literal('json', {
        default: 'json',
        description: 'Only `json`: the answer is `{text}`.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const transcriptionResponseSchema: TSchema = Type.Object({
  text: Type.String(),
});

/** Documents the header; the route checks it itself before reading the body. */
export const transcriptionHeadersSchema: TSchema = Type.Object({
  'idempotency-key': Type.String({
    minLength: transcriptionLimits.idempotencyKey.min,
    maxLength: transcriptionLimits.idempotencyKey.max,
    pattern: transcriptionLimits.idempotencyKey.pattern.source,
    description:
      'Required. The same key with the same request replays the answer; with another request (another file) → 409.',
  }),
});
