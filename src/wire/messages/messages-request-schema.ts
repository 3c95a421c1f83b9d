import { Type } from 'typebox';
import {
  messagesContentBlockSchema,
  stringOrArraySchema,
} from './messages-content-block-schema.ts';

/**
 * Request bodies of POST /v1/messages and /v1/messages/count_tokens, used by Fastify
 * to validate and by the OpenAPI document. Extra fields are allowed at every level: the contract
 * says they may be forwarded, and the fast path (docs/architecture.md) relays them to a
 * message-style upstream. No `default` keywords: Fastify's Ajv would insert them and change a
 * relayed body.
 */

const freeObject = Type.Object({});

export const messagesInputMessageSchema = Type.Object(
  {
    // docs/clients.md: Claude Code sends `role: "system"` messages inside `messages`.
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
    content: stringOrArraySchema(messagesContentBlockSchema),
  },
  { title: 'InputMessage' },
);

export const messagesSystemSchema = stringOrArraySchema(Type.Object({ type: Type.String() }), {
  title: 'System',
});

/** A client-defined tool; `type` is absent or `custom` (the contract's "function tool"). */
export const messagesCustomToolSchema = Type.Object(
  {
    type: Type.Optional(Type.Literal('custom')),
    name: Type.String({ minLength: 1 }),
    description: Type.Optional(Type.String()),
    input_schema: freeObject,
  },
  { title: 'CustomTool' },
);

/** A tool the upstream runs or defines itself (web search, bash, text editor, ...). */
export const messagesServerToolSchema = Type.Object(
  { type: Type.Unsafe<string>({ type: 'string', not: { const: 'custom' } }) },
  { title: 'ServerTool' },
);

export const messagesToolSchema = Type.Union([messagesCustomToolSchema, messagesServerToolSchema], {
  title: 'Tool',
});

export const messagesToolChoiceSchema = Type.Union(
  [Type.String(), Type.Object({ type: Type.String() })],
  { title: 'ToolChoice' },
);

export const messagesRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, description: 'Exact model id from GET /v1/models.' }),
    max_tokens: Type.Integer({ minimum: 1 }),
    messages: Type.Array(messagesInputMessageSchema, { minItems: 1 }),
    system: Type.Optional(messagesSystemSchema),
    stream: Type.Optional(Type.Boolean({ description: 'Default false.' })),
    temperature: Type.Optional(Type.Number()),
    top_p: Type.Optional(Type.Number()),
    top_k: Type.Optional(Type.Integer({ minimum: 0 })),
    stop_sequences: Type.Optional(Type.Array(Type.String())),
    tools: Type.Optional(Type.Array(messagesToolSchema)),
    tool_choice: Type.Optional(messagesToolChoiceSchema),
    thinking: Type.Optional(Type.Object({ type: Type.String() })),
    output_config: Type.Optional(freeObject),
    metadata: Type.Optional(freeObject),
    context_management: Type.Optional(freeObject),
  },
  { title: 'MessagesRequest' },
);

export const countTokensRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1 }),
    messages: Type.Array(messagesInputMessageSchema, { minItems: 1 }),
    system: Type.Optional(messagesSystemSchema),
    tools: Type.Optional(Type.Array(messagesToolSchema)),
    tool_choice: Type.Optional(messagesToolChoiceSchema),
    thinking: Type.Optional(Type.Object({ type: Type.String() })),
  },
  { title: 'CountTokensRequest' },
);
