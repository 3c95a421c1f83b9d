import { Type, type Static } from 'typebox';
import { responsesUsageSchema } from './responses-object-schema.ts';
import { responsesInputItemSchema } from './responses-request-schema.ts';

/**
 * `POST /v1/responses/compact` (docs/decisions/0013), as the OpenAI API defines it and Codex sends
 * it: the conversation to compact, plus the request options of a normal turn (Codex sends `tools`,
 * `parallel_tool_calls`, `reasoning` and `text` too). Extra fields are allowed, as on
 * `/v1/responses`; the route decides what it can carry. "X or null" and "string or array" are
 * `type` unions for the reason given in responses-request-schema.ts.
 */
export const responsesCompactRequestSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: Type.Optional(
    Type.Unsafe<string | Array<Static<typeof responsesInputItemSchema>> | null>({
      type: ['string', 'array', 'null'],
      items: responsesInputItemSchema,
    }),
  ),
  instructions: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] })),
  previous_response_id: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] })),
  prompt_cache_key: Type.Optional(Type.Unsafe<string | null>({ type: ['string', 'null'] })),
});

/**
 * The compacted conversation: every user message of the input in order, then one compaction
 * item, which replaces the rest of the history on the client's next request.
 */
export const responsesCompactionObjectSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('response.compaction'),
  /** Epoch seconds. */
  created_at: Type.Number(),
  output: Type.Array(Type.Object({ type: Type.String() })),
  usage: responsesUsageSchema,
});

export type ResponsesCompactRequest = Static<typeof responsesCompactRequestSchema>;
export type ResponsesCompactionObject = Static<typeof responsesCompactionObjectSchema>;
