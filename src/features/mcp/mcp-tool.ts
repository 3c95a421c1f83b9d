import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { TSchema } from 'typebox';
import type { Principal } from '../../auth/authenticator.ts';
import type { Permission } from '../../auth/permissions.ts';

/** What a tool knows of the call it serves. */
export interface McpToolContext {
  principal: Principal;
  /** The HTTP request's id: usage records and answers carry it like a route's. */
  requestId: string;
}

/**
 * An answer with content blocks of its own (an image, a resource link) besides the structured
 * answer; a tool that returns a plain object gets that object as JSON text.
 */
export class McpToolAnswer {
  constructor(
    readonly structuredContent: Record<string, unknown>,
    readonly content: ContentBlock[],
  ) {}
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
 * One MCP tool (docs/mcp.md). Each calls the same service as its HTTP route, never the gateway
 * over HTTP, and needs the permission that route needs. `call` returns the structured answer,
 * which must match `outputSchema` (wrapped in an McpToolAnswer when it brings content blocks of
 * its own); it throws an ApiError when the call fails, and the server
 * turns that into an `isError` result.
 */
export interface McpTool {
  name: string;
  description: string;
  annotations: McpToolAnnotations;
  /** The route's permission (docs/api.md), checked on every call. */
  permission: Permission;
  /** JSON Schema of the arguments (an object schema); arguments are checked against it. */
  inputSchema: TSchema;
  /** JSON Schema of the structured answer (an object schema). */
  outputSchema: TSchema;
  call(input: unknown, context: McpToolContext): Promise<Record<string, unknown> | McpToolAnswer>;
}
