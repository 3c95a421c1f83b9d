import { Type, type Static, type TSchema } from 'typebox';

/**
 * The non-streamed chat-completions answer, for the OpenAPI document (the contract names only `id`,
 * `choices`, `object`, `model`, `usage`; the rest is what OpenAI sends and chat clients read).
 * Upstream bodies are read leniently by the provider decoder, not validated against these.
 */

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** OpenAI semantics: `prompt_tokens` includes cached reads; `cached_tokens` is a subset of it. */
export const chatUsageSchema = Type.Object(
  {
    prompt_tokens: Type.Integer({ minimum: 0 }),
    completion_tokens: Type.Integer({ minimum: 0 }),
    total_tokens: Type.Integer({ minimum: 0 }),
    prompt_tokens_details: Type.Optional(
      Type.Object({ cached_tokens: Type.Optional(Type.Integer({ minimum: 0 })) }),
    ),
    completion_tokens_details: Type.Optional(
      Type.Object({ reasoning_tokens: Type.Optional(Type.Integer({ minimum: 0 })) }),
    ),
  },
  { title: 'ChatUsage' },
);

export const chatToolCallSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('function'),
    function: Type.Object({
      name: Type.String(),
      /** A JSON text, exactly as the model produced it. */
      arguments: Type.String(),
    }),
  },
  { title: 'ChatToolCall' },
);

export const chatFinishReasonSchema = Type.Union([
  Type.Literal('stop'),
  Type.Literal('length'),
  Type.Literal('tool_calls'),
  Type.Literal('content_filter'),
]);

export const chatResponseSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0 }),
        message: Type.Object({
          role: Type.Literal('assistant'),
          content: nullable(Type.String()),
          refusal: Type.Optional(nullable(Type.String())),
          tool_calls: Type.Optional(Type.Array(chatToolCallSchema)),
          /** Reasoning text where the model exposes it; it has no signature. */
          reasoning_content: Type.Optional(Type.String()),
        }),
        finish_reason: chatFinishReasonSchema,
      }),
    ),
    usage: Type.Optional(chatUsageSchema),
  },
  { title: 'ChatResponse' },
);

export type ChatResponse = Static<typeof chatResponseSchema>;
export type ChatUsage = Static<typeof chatUsageSchema>;
export type ChatToolCall = Static<typeof chatToolCallSchema>;
