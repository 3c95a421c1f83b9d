import { Type, type TSchema } from 'typebox';

/**
 * The `x-ratelimit-*` headers of a generation answer and of the limiter's 429, for the OpenAPI
 * document: OpenAI's names and notation, from the token's and the account's configured limits,
 * the tighter of the two (docs/decisions/0149).
 */
export const rateLimitAnswerHeaders = {
  'x-ratelimit-limit-requests': {
    type: 'integer',
    minimum: 1,
    description:
      'Requests per minute allowed: the tighter of the token and account limits. Absent when no request limit is configured.',
  },
  'x-ratelimit-remaining-requests': {
    type: 'integer',
    minimum: 0,
    description: 'Requests left in the sliding one-minute window, this one counted.',
  },
  'x-ratelimit-reset-requests': {
    type: 'string',
    examples: ['59.75s', '20ms', '1m0s'],
    description:
      "Until the window holds none of the requests it counts now, in OpenAI's duration notation.",
  },
  'x-ratelimit-limit-tokens': {
    type: 'integer',
    minimum: 1,
    description:
      'Tokens per minute allowed: the tighter of the token and account limits. Absent when no token limit is configured.',
  },
  'x-ratelimit-remaining-tokens': {
    type: 'integer',
    minimum: 0,
    description:
      "Tokens left in the window: the limit less the tokens earlier calls used and this call's worst case (prompt and output limit).",
  },
  'x-ratelimit-reset-tokens': {
    type: 'string',
    examples: ['59.75s', '0s'],
    description:
      "Until the window holds none of the tokens it counts now, in OpenAI's duration notation.",
  },
};

const headers = {
  'retry-after': {
    type: 'integer',
    minimum: 1,
    description: 'Seconds until the limit that frees last admits a request again.',
  },
  ...rateLimitAnswerHeaders,
};

const description =
  'Too many requests: a token or account rate limit is reached (`limits` in the configuration). The `x-ratelimit-*` headers tell where each limit stands; upstream rate limits answer 429 too, without them.';

const shapeA = Type.Object(
  {
    error: Type.Object(
      {
        type: Type.Literal('rate_limit_error'),
        message: Type.String(),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true, title: 'RateLimitedA', description },
);

const shapeB = Type.Object(
  {
    type: Type.Literal('error'),
    error: Type.Object(
      { type: Type.Literal('rate_limit_error'), message: Type.String() },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true, title: 'RateLimitedB', description },
);

/** The 429 answers of a generation route, in the route family's error shape. */
export function rateLimitedResponse(shape: 'A' | 'B'): Record<429, TSchema> {
  return { 429: { ...(shape === 'A' ? shapeA : shapeB), headers } as TSchema };
}
