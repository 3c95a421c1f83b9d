import type { TSchema } from 'typebox';
import type { Principal } from '../../auth/authenticator.ts';
import type { Permission } from '../../auth/permissions.ts';

/** What a tool knows of the call it serves. */
export interface McpToolContext {
  principal: Principal;
  /** The HTTP request's id: usage records and answers carry it like a route's. */
  requestId: string;
}

/** MCP tool annotations (MCP 2025-06-18 "Tool"): hints for the client, not guarantees. */
export interface McpToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * One MCP tool (spec §4.11). Each calls the same service as its HTTP route, never the gateway
 * over HTTP, and needs the permission that route needs. `call` returns the structured answer,
 * which must match `outputSchema`; it throws an ApiError when the call fails, and the server
 * turns that into an `isError` result.
 */
export interface McpTool {
  name: string;
  description: string;
  annotations: McpToolAnnotations;
  /** The route's permission (spec §4), checked on every call. */
  permission: Permission;
  /** JSON Schema of the arguments (an object schema); arguments are checked against it. */
  inputSchema: TSchema;
  /** JSON Schema of the structured answer (an object schema). */
  outputSchema: TSchema;
  call(input: unknown, context: McpToolContext): Promise<Record<string, unknown>>;
}
