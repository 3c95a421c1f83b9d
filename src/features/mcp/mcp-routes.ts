import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../auth/authenticator.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { toApiError } from '../../http/install-error-handling.ts';
import { requireToken } from '../../http/require-token.ts';
import { planFailureLogLine } from '../../logging/plan-failure-log-line.ts';
import { mcpRequestSchema, mcpResponseSchemas } from './mcp-schema.ts';
import type { McpToolbox } from './mcp-toolbox.ts';
import { sendMcpError } from './render-mcp-error.ts';
import type * as ServeMcpRequest from './serve-mcp-request.ts';

export interface McpRouteDependencies {
  authenticator: Authenticator;
  toolbox: McpToolbox;
}

/*
 * The MCP SDK with zod and its other dependencies is about 8 MB of heap (docs/performance.md),
 * loaded on the first POST /mcp rather than at start-up, where it would sit in every gateway.
 */
let server: Promise<typeof ServeMcpRequest> | undefined;
const loadServer = () => (server ??= import('./serve-mcp-request.ts'));

/** POST /mcp (operationId callMcp, docs/mcp.md): stateless streamable-HTTP MCP. */
export async function mcpRoutes(
  app: FastifyInstance,
  dependencies: McpRouteDependencies,
): Promise<void> {
  const { toolbox } = dependencies;

  // Everything refused before the server sees a message answers as JSON-RPC (decisions/0081).
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const apiError = toApiError(error);
    // The same lines as any route's failure (docs/decisions/0111).
    const line = planFailureLogLine(error, apiError);
    if (line !== undefined) request.log[line.level](line.fields, `MCP ${line.message}`);
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
      const { serveMcpRequest } = await loadServer();
      return serveMcpRequest(request, reply, toolbox);
    },
  );

  // Stateless, so there is no stream to open (GET) and no session to end (DELETE).
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
