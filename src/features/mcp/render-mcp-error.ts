import type { FastifyReply } from 'fastify';
import type { ApiError } from '../../canonical/generation-error.ts';

/** JSON-RPC 2.0 error codes (https://www.jsonrpc.org/specification#error_object). */
export const jsonRpcErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  /** Implementation-defined server errors; the MCP SDK uses it for refusals at the HTTP level. */
  serverError: -32000,
} as const;

/** The JSON-RPC code for an error the gateway answers before any message reaches the server. */
function jsonRpcCodeFor(error: ApiError): number {
  switch (error.code) {
    case 'invalid_json':
      return jsonRpcErrorCodes.parseError;
    case 'invalid_request':
    case 'credential_in_body':
    case 'json_too_deep':
      return jsonRpcErrorCodes.invalidRequest;
    default:
      return jsonRpcErrorCodes.serverError;
  }
}

/**
 * An error of POST /mcp as a JSON-RPC error response (docs/mcp.md) that is also an error body of
 * shape B (docs/api.md: top-level `type: "error"`, `error.type`, `error.message`), so both readings
 * of the contract hold; the catalogue code travels in `error.data` (docs/decisions/0081).
 */
export function renderMcpErrorBody(error: ApiError, jsonRpcCode = jsonRpcCodeFor(error)) {
  return {
    jsonrpc: '2.0',
    id: null,
    type: 'error',
    error: {
      code: jsonRpcCode,
      message: error.message,
      type: error.type,
      data: { code: error.code },
    },
  };
}

export function sendMcpError(
  reply: FastifyReply,
  error: ApiError,
  jsonRpcCode?: number,
): FastifyReply {
  if (error.retryAfter !== undefined) reply.header('retry-after', String(error.retryAfter));
  // Refused before its body arrived: closing spares reading a body nobody will use.
  if (!reply.request.raw.complete) reply.header('connection', 'close');
  return reply
    .code(error.status)
    .type('application/json')
    .send(JSON.stringify(renderMcpErrorBody(error, jsonRpcCode)));
}
