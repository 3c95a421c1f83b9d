import { Type, type Static, type TSchema } from 'typebox';

/**
 * The request body of POST /v1/chat/completions, used to validate and by the OpenAPI
 * document. Extra fields are allowed at every level: the surface decoder names each one it cannot
 * carry (docs/architecture.md) and the same-dialect fast path forwards them intact.
 * Beyond the contract's own fields, the ones the decoder maps are typed here, nullable because
 * OpenAI reads `null` as "not set", so that a wrong type is a schema error rather than a
 * translation issue. No `default` keywords: a validator would insert them and change a relayed
 * body.
 */

const freeObject = Type.Object({});

const nullable = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));

/**
 * The contract requires `content`; an assistant message that carries `tool_calls` may send `null`
 * (the OpenAI SDKs replay it so when the model produced no text).
 */
export const chatMessageSchema = Type.Object(
  {
    role: Type.Union([
      Type.Literal('system'),
      Type.Literal('developer'),
      Type.Literal('user'),
      Type.Literal('assistant'),
      Type.Literal('tool'),
    ]),
    content: Type.Union([Type.String(), Type.Array(freeObject), Type.Null()]),
    tool_call_id: Type.Optional(Type.String()),
  },
  { title: 'ChatMessage' },
);

export const chatRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, description: 'Exact model id from GET /v1/models.' }),
    messages: Type.Array(chatMessageSchema, { minItems: 1 }),
    stream: Type.Optional(Type.Boolean({ description: 'Default false.' })),
    temperature: Type.Optional(Type.Number()),
    tools: Type.Optional(Type.Array(freeObject)),
    tool_choice: Type.Optional(Type.Union([Type.String(), freeObject])),
    parallel_tool_calls: nullable(Type.Boolean()),
    max_tokens: nullable(Type.Integer({ minimum: 1 })),
    max_completion_tokens: nullable(Type.Integer({ minimum: 1 })),
    top_p: nullable(Type.Number()),
    stop: nullable(Type.Union([Type.String(), Type.Array(Type.String())])),
    n: nullable(Type.Integer({ minimum: 1 })),
    reasoning_effort: nullable(Type.String()),
    response_format: nullable(Type.Object({ type: Type.String() })),
    user: nullable(Type.String()),
    stream_options: nullable(freeObject),
  },
  { title: 'ChatRequest' },
);

export type ChatRequest = Static<typeof chatRequestSchema>;
export type ChatMessage = Static<typeof chatMessageSchema>;
