import {
  CallToolRequestSchema,
  InitializeRequestSchema,
  isJSONRPCRequest,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
} from '@modelcontextprotocol/sdk/types.js';

/** Most messages one POST may carry; the SDK refuses more with the same code. */
const maximumBatch = 100;

/** A zod failure in one line: `params.name: expected string`. */
function describeIssues(error: { issues: Array<{ path: PropertyKey[]; message: string }> }) {
  return error.issues
    .map((issue) => {
      const where = issue.path.map(String).join('.');
      return where === '' ? issue.message : `${where}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * Why a parsed body is not a JSON-RPC 2.0 message or batch of them, or undefined when it is.
 * JSON-RPC answers a well-formed JSON text that is no valid Request with -32600; the SDK would
 * answer -32700, which is reserved for text that is not JSON at all.
 */
export function findInvalidJsonRpc(body: unknown): string | undefined {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return 'an empty batch';
  if (messages.length > maximumBatch) return `a batch of more than ${maximumBatch} messages`;
  for (const [index, message] of messages.entries()) {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (!parsed.success) {
      const where = Array.isArray(body) ? ` (message ${index})` : '';
      return `not a JSON-RPC 2.0 request, notification or response${where}`;
    }
  }
  return undefined;
}

/** The params schema of each method this server answers (MCP "Lifecycle", "Tools"). */
const requestSchemas = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
} as const;

/**
 * Why the params of a request for a method this server answers do not fit that method, or
 * undefined. JSON-RPC calls that -32602; the SDK would fail the parse inside its handler and
 * answer -32603 (an internal error), which blames the server for the client's mistake.
 */
export function findInvalidParams(message: JSONRPCMessage): string | undefined {
  if (!isJSONRPCRequest(message)) return undefined;
  const request: JSONRPCRequest = message;
  if (!Object.hasOwn(requestSchemas, request.method)) return undefined;
  const schema = requestSchemas[request.method as keyof typeof requestSchemas];
  const parsed = schema.safeParse({ method: request.method, params: request.params });
  return parsed.success ? undefined : describeIssues(parsed.error);
}
