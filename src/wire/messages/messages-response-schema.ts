import { Type } from 'typebox';

/**
 * Response bodies of the message-style routes, for the OpenAPI document. Usage
 * follows the dialect's own semantics (docs/clients.md): `input_tokens` excludes cache reads and
 * cache writes, which are reported beside it, writes split per TTL in `cache_creation`.
 */

const tokenCount = Type.Integer({ minimum: 0 });

export const messagesUsageSchema = Type.Object(
  {
    input_tokens: tokenCount,
    output_tokens: tokenCount,
    cache_read_input_tokens: Type.Optional(Type.Union([tokenCount, Type.Null()])),
    cache_creation_input_tokens: Type.Optional(Type.Union([tokenCount, Type.Null()])),
    cache_creation: Type.Optional(
      Type.Union([
        Type.Object({
          ephemeral_5m_input_tokens: tokenCount,
          ephemeral_1h_input_tokens: tokenCount,
        }),
        Type.Null(),
      ]),
    ),
  },
  { title: 'MessagesUsage' },
);

export const messageResponseSchema = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('message'),
    role: Type.Literal('assistant'),
    content: Type.Array(Type.Object({ type: Type.String() })),
    model: Type.String(),
    stop_reason: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    stop_sequence: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    usage: Type.Optional(messagesUsageSchema),
  },
  { title: 'MessageResponse' },
);

export const countTokensResponseSchema = Type.Object(
  { input_tokens: tokenCount },
  { title: 'CountTokensResponse' },
);
