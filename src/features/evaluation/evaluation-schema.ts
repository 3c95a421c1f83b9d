import { Type, type TSchema } from 'typebox';

/**
 * The evaluation contract (docs/evaluation.md) as JSON Schema: Fastify validates requests with
 * it and /openapi.json publishes it. Written as plain JSON Schema because a question is a tagged
 * union (`discriminator` on `type`, so a bad question is reported inside its own kind).
 */
export const evaluationLimits = {
  questions: { min: 1, max: 128 },
  choiceCriteria: { min: 1, max: 255 },
  scoreCriteria: { min: 2, max: 10 },
  bodyBytes: 512 * 1024,
  key: { min: 1, max: 80, pattern: /^[A-Za-z0-9._:-]+$/ },
  specificationVersion: '4',
} as const;

/** Content is a string, an array, or a free object (docs/evaluation.md). */
const content = {
  type: ['string', 'array', 'object'],
  description: 'Content: a string, an array or an object.',
};

const question = (kind: string, criteria: Record<string, unknown> | undefined) => ({
  type: 'object',
  properties: {
    type: { type: 'string', const: kind },
    instructions: content,
    ...(criteria === undefined ? {} : { criteria }),
  },
  required: ['type', 'instructions', ...(kind === 'boolean' ? [] : ['criteria'])],
  additionalProperties: false,
});

const choiceQuestion = question('choice', {
  type: 'object',
  minProperties: evaluationLimits.choiceCriteria.min,
  maxProperties: evaluationLimits.choiceCriteria.max,
  additionalProperties: content,
  description: 'Criterion name → content; the answer is one of the names.',
});
const scoreQuestion = question('score', {
  type: 'array',
  minItems: evaluationLimits.scoreCriteria.min,
  maxItems: evaluationLimits.scoreCriteria.max,
  items: content,
  description: 'The score levels in order; the answer is the zero-based index of one.',
});
const booleanQuestion = {
  ...question('boolean', undefined),
  properties: {
    ...question('boolean', undefined).properties,
    criteria: { type: 'object', description: 'Free object.' },
  },
};

export const evaluationRequestSchema: TSchema = Type.Unsafe({
  type: 'object',
  properties: {
    state: content,
    questions: {
      type: 'object',
      minProperties: evaluationLimits.questions.min,
      maxProperties: evaluationLimits.questions.max,
      additionalProperties: {
        type: 'object',
        discriminator: { propertyName: 'type' },
        required: ['type'],
        oneOf: [choiceQuestion, scoreQuestion, booleanQuestion],
      },
      description: 'Question name → question.',
    },
  },
  required: ['state', 'questions'],
  additionalProperties: false,
});

const reason = {
  type: 'string',
  description: "The judge's short reason, when it gave one.",
};
const answer = (kind: string, value: Record<string, unknown>) => ({
  type: 'object',
  properties: { type: { type: 'string', const: kind }, value, reason },
  required: ['type', 'value'],
});

/** docs/evaluation.md: every answer was checked against its question before it is sent. */
export const evaluationResponseSchema: TSchema = Type.Unsafe({
  type: 'object',
  properties: {
    answers: {
      type: 'object',
      additionalProperties: {
        oneOf: [
          answer('choice', { type: 'string', description: 'One of the criteria names.' }),
          answer('score', {
            type: 'integer',
            minimum: 0,
            description: 'Zero-based index into the question’s criteria.',
          }),
          answer('boolean', { type: 'boolean' }),
        ],
      },
      description: 'Question name → answer, one per question.',
    },
    usage: {
      type: 'object',
      properties: {
        inputTokens: { type: 'integer', minimum: 0 },
        outputTokens: { type: 'integer', minimum: 0 },
      },
      required: ['inputTokens', 'outputTokens'],
      description: 'Summed over every upstream call.',
    },
    providerMetadata: {
      type: 'object',
      properties: {
        deployments: { type: 'array', items: { type: 'string' } },
        upstreamRequestIds: { type: 'array', items: { type: 'string' } },
        calls: { type: 'integer', minimum: 1 },
      },
    },
  },
  required: ['answers', 'usage'],
});

/** Documents the headers; the route checks them itself before reading the body. */
export function evaluationHeadersSchema(modelId: string): TSchema {
  return Type.Unsafe({
    type: 'object',
    properties: {
      'idempotency-key': {
        type: 'string',
        minLength: evaluationLimits.key.min,
        maxLength: evaluationLimits.key.max,
        pattern: evaluationLimits.key.pattern.source,
      },
      'ai-model-id': { type: 'string', const: modelId },
      'ai-evaluation-model-specification-version': {
        type: 'string',
        const: evaluationLimits.specificationVersion,
      },
    },
    required: ['idempotency-key', 'ai-model-id', 'ai-evaluation-model-specification-version'],
  });
}
