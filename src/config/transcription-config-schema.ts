import { Type, type Static } from 'typebox';

/** Credits (1 credit = 1 USD unless configured otherwise), at most 6 decimal places. */
const Price = Type.Number({ minimum: 0 });

/** One transcription model: an id clients send, its deployments and its prices. */
export const TranscriptionModelConfigSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, description: 'Model id clients send in the `model` part.' }),
    deployments: Type.Array(
      Type.Object(
        {
          provider: Type.String({
            minLength: 1,
            description: 'A provider of kind openai-transcription.',
          }),
          upstreamModel: Type.String({ minLength: 1 }),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 1,
        description: 'Tried in order; the next one on 5xx or connect failure before any answer.',
      },
    ),
    pricing: Type.Object(
      {
        perSecond: Type.Number({
          minimum: 0,
          description:
            'Credits per second of audio: the hold (header duration) and the charge when the upstream reports seconds or no usage.',
        }),
        input: Type.Optional(Price),
        output: Type.Optional(Price),
      },
      {
        additionalProperties: false,
        description:
          '`input` and `output`: credits per million tokens, charged when the upstream reports token usage and both are set.',
      },
    ),
  },
  { additionalProperties: false },
);

/**
 * Audio transcription (docs/transcription.md): absent, POST
 * /v1/audio/transcriptions does not exist.
 */
export const TranscriptionConfigSchema = Type.Optional(
  Type.Object(
    {
      models: Type.Array(TranscriptionModelConfigSchema, { minItems: 1 }),
    },
    { additionalProperties: false },
  ),
);

export type TranscriptionConfig = NonNullable<Static<typeof TranscriptionConfigSchema>>;
export type TranscriptionModelConfig = Static<typeof TranscriptionModelConfigSchema>;
