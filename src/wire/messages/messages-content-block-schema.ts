import { Type, type TSchema } from 'typebox';

/**
 * Content blocks of the message-style dialect. Known block types are checked for their
 * required fields; any other block type (document, search_result, server tool blocks, ...) is
 * accepted as a free object so that real clients are never rejected by the schema (docs/clients.md:
 * Claude Code sends more than the basic fields). Whether a block can be translated is the codec's
 * decision, not the schema's. Extra fields are allowed on every object.
 */

const freeObject = Type.Object({});

/**
 * `string | array` as one `type` list rather than `anyOf`: Fastify's default Ajv coerces types
 * (`coerceTypes: "array"`), and in an `anyOf` its string branch would try to unwrap a
 * one-element array, rejecting valid bodies. With a type list nothing is coerced.
 */
export function stringOrArraySchema(items: TSchema, options: { title?: string } = {}) {
  return Type.Unsafe<string | unknown[]>({ ...options, type: ['string', 'array'], items });
}

export const knownMessagesBlockTypes = [
  'text',
  'image',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
] as const;

export const messagesTextBlockSchema = Type.Object(
  { type: Type.Literal('text'), text: Type.String() },
  { title: 'TextBlock' },
);

export const messagesImageBlockSchema = Type.Object(
  { type: Type.Literal('image'), source: freeObject },
  { title: 'ImageBlock' },
);

export const messagesToolUseBlockSchema = Type.Object(
  { type: Type.Literal('tool_use'), id: Type.String(), name: Type.String(), input: freeObject },
  { title: 'ToolUseBlock' },
);

export const messagesToolResultBlockSchema = Type.Object(
  {
    type: Type.Literal('tool_result'),
    tool_use_id: Type.String(),
    content: stringOrArraySchema(freeObject),
    is_error: Type.Optional(Type.Boolean()),
  },
  { title: 'ToolResultBlock' },
);

export const messagesThinkingBlockSchema = Type.Object(
  { type: Type.Literal('thinking'), thinking: Type.String(), signature: Type.String() },
  { title: 'ThinkingBlock' },
);

export const messagesRedactedThinkingBlockSchema = Type.Object(
  { type: Type.Literal('redacted_thinking'), data: Type.String() },
  { title: 'RedactedThinkingBlock' },
);

/** Any block whose `type` is none of the known ones. */
export const messagesOtherBlockSchema = Type.Object(
  {
    type: Type.Unsafe<string>({ type: 'string', not: { enum: [...knownMessagesBlockTypes] } }),
  },
  { title: 'OtherBlock' },
);

export const messagesContentBlockSchema = Type.Union(
  [
    messagesTextBlockSchema,
    messagesImageBlockSchema,
    messagesToolUseBlockSchema,
    messagesToolResultBlockSchema,
    messagesThinkingBlockSchema,
    messagesRedactedThinkingBlockSchema,
    messagesOtherBlockSchema,
  ],
  { title: 'ContentBlock' },
);
