import { Type, type Static, type TSchema } from 'typebox';
import { chatFinishReasonSchema, chatUsageSchema } from './chat-response-schema.ts';

const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/**
 * One SSE `data:` payload of a streamed answer (no event name). The first delta of each tool call
 * carries `index`, `id`, `type`, `function.name`; later ones only `index` and argument fragments.
 * With `stream_options.include_usage` a last chunk has `choices: []` and the usage; the stream
 * ends with the raw `data: [DONE]`.
 */
export const chatChunkSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion.chunk'),
    created: Type.Integer(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer({ minimum: 0 }),
        delta: Type.Object({
          role: Type.Optional(Type.Literal('assistant')),
          content: Type.Optional(nullable(Type.String())),
          reasoning_content: Type.Optional(Type.String()),
          tool_calls: Type.Optional(
            Type.Array(
              Type.Object({
                index: Type.Integer({ minimum: 0 }),
                id: Type.Optional(Type.String()),
                type: Type.Optional(Type.Literal('function')),
                function: Type.Optional(
                  Type.Object({
                    name: Type.Optional(Type.String()),
                    arguments: Type.Optional(Type.String()),
                  }),
                ),
              }),
            ),
          ),
        }),
        finish_reason: nullable(chatFinishReasonSchema),
      }),
    ),
    usage: Type.Optional(nullable(chatUsageSchema)),
  },
  { title: 'ChatChunk' },
);

export type ChatChunk = Static<typeof chatChunkSchema>;
