import type { FastifyReply, FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../../canonical/generation-error.ts';
import { findInvalidJsonRpc, findInvalidParams } from './check-jsonrpc-message.ts';
import type { McpToolContext } from './mcp-tool.ts';
import type { McpToolbox } from './mcp-toolbox.ts';
import { jsonRpcErrorCodes, sendMcpError } from './render-mcp-error.ts';

/*
 * Everything of POST /mcp that runs the MCP SDK. mcp-routes.ts loads this module on the first
 * request, so a gateway that is never asked over MCP does not hold the SDK and zod in memory.
 */

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

/** A low-level SDK server for one HTTP request, acting for its token. */
function createServer(toolbox: McpToolbox, context: McpToolContext): Server {
  const server = new Server(toolbox.serverInfo, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: toolbox.definitionsFor(context.principal),
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    toolbox.call(request.params.name, request.params.arguments ?? {}, context),
  );
  return server;
}

/** One POST /mcp whose body passed the route's schema (or failed it: `validationError`). */
export async function serveMcpRequest(
  request: FastifyRequest,
  reply: FastifyReply,
  toolbox: McpToolbox,
): Promise<unknown> {
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
  const server = createServer(toolbox, { principal, requestId: request.id });
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
}
