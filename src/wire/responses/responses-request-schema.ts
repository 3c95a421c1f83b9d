import { Type, type Static, type TSchema } from 'typebox';

/**
 * The responses-style request as clients send it, Codex included (docs/clients.md).
 * Extra fields are allowed everywhere: the surface decoder, not the schema, decides whether a
 * field can be carried. Variants are selected by `type` with `if`/`then`, so a client gets an
 * error about the variant it sent instead of an `anyOf` mismatch against every variant.
 *
 * "String or array" and "X or null" are union `type` keywords, not `anyOf`: Fastify's Ajv
 * coerces types (`coerceTypes: "array"`), and inside an `anyOf` it turns a one-element array
 * into its element and a null into `""`, `false` or `[""]` before the right branch is tried.
 */

/** The JSON Schema of a TypeBox type without its TypeBox kind, to widen its `type`. */
function widened(schema: TSchema, extraType: string): Record<string, unknown> {
  const { type, ...rest } = { ...schema } as { type: string } & Record<string, unknown>;
  return { ...rest, type: [type, extraType] };
}

const nullable = <T extends TSchema>(schema: T) =>
  Type.Optional(Type.Unsafe<Static<T> | null>(widened(schema, 'null')));

/** A string, or an array of `items`. */
const stringOrArray = <T extends TSchema>(items: T) =>
  Type.Unsafe<string | Array<Static<T>>>({ type: ['string', 'array'], items });

/** `allOf` of `if type == X then schema` pairs; objects of other types only need a string `type`. */
function variantsByType(variants: Record<string, TSchema>): { allOf: unknown[] } {
  return {
    allOf: Object.entries(variants).map(([type, schema]) => ({
      if: { properties: { type: { const: type } }, required: ['type'] },
      then: schema,
    })),
  };
}

export const responsesInputTextSchema = Type.Object({
  type: Type.Literal('input_text'),
  text: Type.String(),
});

export const responsesOutputTextInputSchema = Type.Object({
  type: Type.Literal('output_text'),
  text: Type.String(),
  annotations: Type.Optional(Type.Array(Type.Object({}))),
});

export const responsesInputImageSchema = Type.Object({
  type: Type.Literal('input_image'),
  image_url: nullable(Type.String()),
  file_id: nullable(Type.String()),
  detail: Type.Optional(Type.String()),
});

export const responsesRefusalSchema = Type.Object({
  type: Type.Literal('refusal'),
  refusal: Type.String(),
});

/** A content part of a message or of a function call output. */
export const responsesContentPartSchema = Type.Object(
  { type: Type.String() },
  variantsByType({
    input_text: responsesInputTextSchema,
    output_text: responsesOutputTextInputSchema,
    input_image: responsesInputImageSchema,
    refusal: responsesRefusalSchema,
  }),
);

export const responsesMessageItemSchema = Type.Object({
  type: Type.Optional(Type.Literal('message')),
  role: Type.Union([
    Type.Literal('user'),
    Type.Literal('assistant'),
    Type.Literal('system'),
    Type.Literal('developer'),
  ]),
  content: stringOrArray(responsesContentPartSchema),
});

export const responsesFunctionCallItemSchema = Type.Object({
  type: Type.Literal('function_call'),
  /** The item id (`fc_…`); never the same thing as `call_id`. */
  id: Type.Optional(Type.String()),
  call_id: Type.String(),
  name: Type.String(),
  /** Set when the function belongs to a `namespace` tool. */
  namespace: Type.Optional(Type.String()),
  arguments: Type.String(),
});

export const responsesFunctionCallOutputItemSchema = Type.Object({
  type: Type.Literal('function_call_output'),
  call_id: Type.String(),
  output: stringOrArray(responsesContentPartSchema),
});

export const responsesReasoningItemSchema = Type.Object({
  type: Type.Literal('reasoning'),
  id: Type.Optional(Type.String()),
  summary: Type.Array(Type.Object({ type: Type.String(), text: Type.String() })),
  encrypted_content: nullable(Type.String()),
  content: nullable(Type.Array(Type.Object({ type: Type.String() }))),
});

/**
 * A compaction item as a client sends it back (docs/decisions/0013): `encrypted_content` is the
 * gateway's sealed token, opened before translation (src/compaction/).
 */
export const responsesCompactionItemSchema = Type.Object({
  type: Type.Literal('compaction'),
  id: nullable(Type.String()),
  encrypted_content: Type.String({ minLength: 1 }),
});

/** Asks for a compaction of everything before it; must be the last input item. */
export const responsesCompactionTriggerItemSchema = Type.Object({
  type: Type.Literal('compaction_trigger'),
});

/** An input item: a message (`type` may be omitted) or one of the typed items. */
export const responsesInputItemSchema = Type.Object(
  { type: Type.Optional(Type.String()) },
  {
    allOf: [
      {
        if: { not: { properties: { type: {} }, required: ['type'] } },
        then: responsesMessageItemSchema,
      },
      ...variantsByType({
        message: responsesMessageItemSchema,
        function_call: responsesFunctionCallItemSchema,
        function_call_output: responsesFunctionCallOutputItemSchema,
        reasoning: responsesReasoningItemSchema,
        compaction: responsesCompactionItemSchema,
        compaction_trigger: responsesCompactionTriggerItemSchema,
      }).allOf,
    ],
  },
);

export const responsesFunctionToolSchema = Type.Object({
  type: Type.Literal('function'),
  name: Type.String({ minLength: 1 }),
  description: nullable(Type.String()),
  parameters: nullable(Type.Object({})),
  strict: nullable(Type.Boolean()),
});

/** A group of function tools that the model calls as `namespace` + `name` (Codex). */
export const responsesNamespaceToolSchema = Type.Object({
  type: Type.Literal('namespace'),
  name: Type.String({ minLength: 1 }),
  description: nullable(Type.String()),
  tools: Type.Array(Type.Object({ type: Type.String() })),
});

export const responsesToolSchema = Type.Object(
  { type: Type.String() },
  variantsByType({
    function: responsesFunctionToolSchema,
    namespace: responsesNamespaceToolSchema,
  }),
);

export const responsesJsonSchemaFormatSchema = Type.Object({
  type: Type.Literal('json_schema'),
  name: Type.String({ minLength: 1 }),
  schema: Type.Object({}),
  strict: nullable(Type.Boolean()),
  description: nullable(Type.String()),
});

export const responsesTextFormatSchema = Type.Object(
  { type: Type.String() },
  variantsByType({ json_schema: responsesJsonSchemaFormatSchema }),
);

export const responsesRequestSchema = Type.Object({
  model: Type.String({ minLength: 1 }),
  input: stringOrArray(responsesInputItemSchema),
  instructions: nullable(Type.String()),
  stream: nullable(Type.Boolean()),
  store: nullable(Type.Boolean()),
  previous_response_id: nullable(Type.String()),
  tools: nullable(Type.Array(responsesToolSchema)),
  tool_choice: Type.Optional(
    Type.Unsafe<string | { type: string } | null>({
      type: ['string', 'object', 'null'],
      properties: { type: { type: 'string' } },
      required: ['type'],
    }),
  ),
  temperature: nullable(Type.Number()),
  top_p: nullable(Type.Number()),
  max_output_tokens: nullable(Type.Integer({ minimum: 1 })),
  parallel_tool_calls: nullable(Type.Boolean()),
  reasoning: nullable(
    Type.Object({
      effort: nullable(Type.String()),
      summary: nullable(Type.String()),
    }),
  ),
  text: nullable(
    Type.Object({
      format: nullable(responsesTextFormatSchema),
      verbosity: nullable(Type.String()),
    }),
  ),
  include: nullable(Type.Array(Type.String())),
  prompt_cache_key: nullable(Type.String()),
  client_metadata: nullable(Type.Object({})),
  metadata: nullable(Type.Object({})),
  user: nullable(Type.String()),
});

export type ResponsesRequest = Static<typeof responsesRequestSchema>;
