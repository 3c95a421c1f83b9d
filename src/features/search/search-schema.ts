import { Type, type TSchema } from 'typebox';

/** The search contract (docs/search.md) as JSON Schema: validation and /openapi.json. */
export const searchLimits = {
  query: { min: 1, max: 2000 },
  maxResults: { min: 1, max: 10, default: 8 },
  requestId: { min: 1, max: 80, pattern: /^[A-Za-z0-9._:-]+$/ },
} as const;

/** The fields of the request body; the MCP `search` tool takes the same ones. */
export const searchRequestProperties = {
  query: Type.String({
    minLength: searchLimits.query.min,
    maxLength: searchLimits.query.max,
    description: 'What to search the web for.',
  }),
  effort: Type.Optional(
    Type.Literal('basic', { default: 'basic', description: 'Only `basic` is offered.' }),
  ),
  max_results: Type.Optional(
    Type.Integer({
      minimum: searchLimits.maxResults.min,
      maximum: searchLimits.maxResults.max,
      default: searchLimits.maxResults.default,
      description: 'The most results to answer.',
    }),
  ),
};

export const searchRequestSchema: TSchema = Type.Object(searchRequestProperties, {
  additionalProperties: false,
});

export const searchResponseSchema: TSchema = Type.Object({
  query: Type.String(),
  results: Type.Array(
    Type.Object({
      title: Type.String(),
      url: Type.String(),
      content: Type.String({ description: 'A plain-text snippet of the page.' }),
      score: Type.Optional(Type.Number({ description: 'Relevance, when the provider gives one.' })),
      published_date: Type.Optional(
        Type.String({ description: 'As the provider gave it, when it did.' }),
      ),
    }),
  ),
  provider: Type.String({ description: 'The configured search provider that answered.' }),
  request_id: Type.String(),
  usage: Type.Object({
    requests: Type.Integer({ minimum: 0 }),
    credits: Type.Number({ minimum: 0, description: 'What this search was charged.' }),
  }),
});

/** Documents the header; the route checks it itself before reading the body. */
export const searchHeadersSchema: TSchema = Type.Object({
  'x-request-id': Type.Optional(
    Type.String({
      minLength: searchLimits.requestId.min,
      maxLength: searchLimits.requestId.max,
      pattern: searchLimits.requestId.pattern.source,
      description:
        'Idempotency identifier: the same id with the same parameters replays the answer; with other parameters → 409.',
    }),
  ),
});
