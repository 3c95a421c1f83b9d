import { Type, type Static } from 'typebox';

/**
 * The response object of the responses dialect and its output items, as the gateway
 * renders them and as an upstream answers. For documentation (OpenAPI) and for the codecs' types;
 * nothing validates upstream answers against it (they are read leniently).
 */

export const responsesOutputTextSchema = Type.Object({
  type: Type.Literal('output_text'),
  text: Type.String(),
  annotations: Type.Array(Type.Object({})),
  logprobs: Type.Optional(Type.Array(Type.Object({}))),
});

export const responsesSummaryTextSchema = Type.Object({
  type: Type.Literal('summary_text'),
  text: Type.String(),
});

export const responsesOutputMessageSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('message'),
  status: Type.String(),
  role: Type.Literal('assistant'),
  content: Type.Array(responsesOutputTextSchema),
});

export const responsesOutputReasoningSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('reasoning'),
  summary: Type.Array(responsesSummaryTextSchema),
  /** Opaque; present when the client asked for `include: ["reasoning.encrypted_content"]`. */
  encrypted_content: Type.Optional(Type.String()),
});

export const responsesOutputFunctionCallSchema = Type.Object({
  /** The item id (`fc_…`). */
  id: Type.String(),
  type: Type.Literal('function_call'),
  status: Type.String(),
  /** The id that the client's `function_call_output` refers to. */
  call_id: Type.String(),
  name: Type.String(),
  namespace: Type.Optional(Type.String()),
  arguments: Type.String(),
});

/**
 * The result of a compaction (docs/decisions/0013): the client sends it back as an input item
 * later. `encrypted_content` is sealed by the gateway (docs/decisions/0013), opaque to the client.
 */
export const responsesOutputCompactionSchema = Type.Object({
  id: Type.String(),
  type: Type.Literal('compaction'),
  encrypted_content: Type.String(),
});

export const responsesOutputItemSchema = Type.Union([
  responsesOutputMessageSchema,
  responsesOutputReasoningSchema,
  responsesOutputFunctionCallSchema,
  responsesOutputCompactionSchema,
]);

/** OpenAI semantics: `input_tokens` includes the cached tokens. */
export const responsesUsageSchema = Type.Object({
  input_tokens: Type.Integer({ minimum: 0 }),
  input_tokens_details: Type.Object({ cached_tokens: Type.Integer({ minimum: 0 }) }),
  output_tokens: Type.Integer({ minimum: 0 }),
  output_tokens_details: Type.Object({ reasoning_tokens: Type.Integer({ minimum: 0 }) }),
  total_tokens: Type.Integer({ minimum: 0 }),
});

export const responsesErrorSchema = Type.Object({ code: Type.String(), message: Type.String() });

export const responseObjectSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('response'),
  /** Epoch seconds. */
  created_at: Type.Number(),
  status: Type.Union([
    Type.Literal('in_progress'),
    Type.Literal('completed'),
    Type.Literal('incomplete'),
    Type.Literal('failed'),
  ]),
  error: Type.Union([responsesErrorSchema, Type.Null()]),
  incomplete_details: Type.Union([Type.Object({ reason: Type.String() }), Type.Null()]),
  model: Type.String(),
  output: Type.Array(responsesOutputItemSchema),
  usage: Type.Union([responsesUsageSchema, Type.Null()]),
});

export type ResponsesOutputText = Static<typeof responsesOutputTextSchema>;
export type ResponsesOutputMessage = Static<typeof responsesOutputMessageSchema>;
export type ResponsesOutputReasoning = Static<typeof responsesOutputReasoningSchema>;
export type ResponsesOutputFunctionCall = Static<typeof responsesOutputFunctionCallSchema>;
export type ResponsesOutputCompaction = Static<typeof responsesOutputCompactionSchema>;
export type ResponsesOutputItem = Static<typeof responsesOutputItemSchema>;
export type ResponsesUsage = Static<typeof responsesUsageSchema>;
export type ResponsesError = Static<typeof responsesErrorSchema>;
export type ResponseObject = Static<typeof responseObjectSchema>;
