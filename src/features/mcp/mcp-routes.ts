import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Authenticator } from '../../auth/authenticator.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { toApiError } from '../../http/install-error-handling.ts';
import { requireToken } from '../../http/require-token.ts';
import { findInvalidJsonRpc, findInvalidParams } from './check-jsonrpc-message.ts';
import { mcpRequestSchema, mcpResponseSchemas } from './mcp-schema.ts';
import type { McpToolbox } from './mcp-toolbox.ts';
import { resolveBaseUrl } from './resolve-base-url.ts';
import { jsonRpcErrorCodes, sendMcpError } from './render-mcp-error.ts';

export interface McpRouteDependencies {
  authenticator: Authenticator;
  toolbox: McpToolbox;
  /** `server.publicBaseUrl`; without it links are derived from each request. */
  publicBaseUrl: string | undefined;
}

/**
 * The client lists both types (the SDK answers 406 otherwise); the one it prefers — by q-value,
 * then by order — decides between one JSON body and an SSE stream (docs/decisions/0080).
 */
function prefersJson(accept: string | undefined): boolean {
  const [preferred] = new Negotiator({ headers: { accept: accept ?? '' } }).mediaTypes([
    'application/json',
    'text/event-stream',
  ]);
  return preferred !== 'text/event-stream';
}

/**
 * The SDK would answer a request whose params do not fit its method with -32603; JSON-RPC says
 * -32602. The check runs between the transport and the server, so the answer takes the same
 * way back (JSON or SSE) as any other.
 */
function guardParams(transport: StreamableHTTPServerTransport): void {
  const deliver = transport.onmessage;
  if (deliver === undefined) return;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    const problem = findInvalidParams(message);
    if (problem === undefined || !('id' in message)) {
      deliver(message, extra);
      return;
    }
    void transport.send({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: jsonRpcErrorCodes.invalidParams, message: `Invalid params: ${problem}` },
    });
  };
}

/** POST /mcp (spec §4.11, operationId callMcp): stateless streamable-HTTP MCP. */
export async function mcpRoutes(
  app: FastifyInstance,
  dependencies: McpRouteDependencies,
): Promise<void> {
  const { toolbox } = dependencies;

  // Everything refused before the server sees a message answers as JSON-RPC (decisions/0081).
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'MCP request failed');
    return sendMcpError(reply, apiError);
  });

  app.post(
    '/mcp',
    {
      onRequest: requireToken(dependencies.authenticator, 'mcp:call'),
      schema: {
        operationId: 'callMcp',
        summary:
          'Stateless streamable-HTTP MCP (JSON-RPC 2.0): initialize, tools/list, tools/call.',
        body: mcpRequestSchema,
        response: mcpResponseSchemas,
      },
      // A body that is JSON but not JSON-RPC is -32600, answered below rather than as a 400.
      attachValidation: true,
      serializerCompiler: () => (data) => (typeof data === 'string' ? data : JSON.stringify(data)),
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const problem =
        request.validationError === undefined || request.validationError === null
          ? findInvalidJsonRpc(request.body)
          : 'not a JSON-RPC 2.0 request or batch of them';
      if (problem !== undefined) {
        return sendMcpError(
          reply,
          new ApiError('invalid_request', `Invalid Request: the body is ${problem}.`),
          jsonRpcErrorCodes.invalidRequest,
        );
      }
      const principal = request.principal as NonNullable<FastifyRequest['principal']>;
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: prefersJson(request.headers.accept),
      });
      transport.onerror = (error) => request.log.debug({ err: error }, 'MCP transport refused');
      const server = toolbox.createServer({
        principal,
        requestId: request.id,
        baseUrl: resolveBaseUrl(dependencies.publicBaseUrl, request.protocol, request.headers.host),
      });
      await server.connect(transport);
      guardParams(transport);
      // The SDK writes the answer itself; the headers set so far (request-id) go with it.
      reply.hijack();
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, value);
      }
      reply.raw.on('close', () => {
        void server.close();
      });
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );

  // spec §4.11: stateless, so there is no stream to open (GET) and no session to end (DELETE).
  const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    return sendMcpError(
      reply,
      new ApiError(
        'method_not_allowed',
        'Method not allowed: this MCP server is stateless; send JSON-RPC messages with POST.',
      ),
    );
  };
  app.get('/mcp', { schema: { hide: true } }, methodNotAllowed);
  app.delete('/mcp', { schema: { hide: true } }, methodNotAllowed);
}
