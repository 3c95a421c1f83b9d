import { Type, type TSchema } from 'typebox';

const jsonRpcId = Type.Union([Type.String(), Type.Integer(), Type.Null()]);

/** A JSON-RPC 2.0 request. */
const jsonRpcRequestSchema = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    method: Type.String({ minLength: 1 }),
    id: Type.Optional(jsonRpcId),
    params: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { title: 'JsonRpcRequest' },
);

/** One request, or a batch of them (protocol versions before 2025-06-18 allow batches). */
export const mcpRequestSchema: TSchema = Type.Union([
  jsonRpcRequestSchema,
  Type.Array(jsonRpcRequestSchema, { minItems: 1, maxItems: 100 }),
]);

const jsonRpcErrorObject = Type.Object(
  {
    code: Type.Integer(),
    message: Type.String(),
    data: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

/** A JSON-RPC 2.0 response. */
const jsonRpcResponseSchema = Type.Object(
  {
    jsonrpc: Type.Literal('2.0'),
    id: jsonRpcId,
    result: Type.Optional(Type.Unknown()),
    error: Type.Optional(jsonRpcErrorObject),
  },
  { title: 'JsonRpcResponse', additionalProperties: true },
);

/** The HTTP answers of POST /mcp, for /openapi.json. */
export const mcpResponseSchemas = {
  200: {
    description:
      'The JSON-RPC response: a JSON body, or an SSE stream of `message` events, as the Accept header prefers.',
    content: {
      'application/json': { schema: jsonRpcResponseSchema },
      'text/event-stream': { schema: Type.String() },
    },
  },
  202: { description: 'Only notifications or responses were sent: nothing to answer.' },
  '4xx': {
    description:
      'A JSON-RPC error response with `id: null`, also an error body of shape B (docs/api.md): 400 (-32700 parse error, -32600 invalid request), 401, 405, 406, 413, 415, 429.',
    content: { 'application/json': { schema: jsonRpcResponseSchema } },
  },
};
