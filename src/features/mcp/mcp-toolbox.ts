import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { Compile } from 'typebox/compile';
import type { Principal } from '../../auth/authenticator.ts';
import type { Validator } from 'typebox/compile';
import { ApiError } from '../../canonical/generation-error.ts';
import { toDependencyError } from '../../http/install-error-handling.ts';
import { McpToolAnswer, type McpTool, type McpToolContext } from './mcp-tool.ts';
import { jsonRpcErrorCodes } from './render-mcp-error.ts';

interface ToolEntry {
  tool: McpTool;
  validator: Validator;
  definition: Tool;
}

export interface McpToolboxOptions {
  tools: McpTool[];
  serverInfo: { name: string; version: string };
  /** Told of a tool failure that is the gateway's (a 5xx): the error, as answered, and the tool. */
  logFailure(error: unknown, answered: ApiError, tool: string): void;
}

/** One line per problem: `max_results: must be <= 10`. */
function describeInvalidArguments(validator: Validator, input: unknown): string {
  return [...validator.Errors(input)]
    .filter((error) => error.keyword !== 'boolean')
    .map((error) => {
      const params = error.params as Record<string, unknown>;
      const where = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
      if (error.keyword === 'required' && Array.isArray(params.requiredProperties)) {
        return `${[where, ...params.requiredProperties].filter((part) => part !== '').join('.')} is required`;
      }
      if (error.keyword === 'additionalProperties' && Array.isArray(params.additionalProperties)) {
        return `${params.additionalProperties.join(', ')} is not an argument of this tool`;
      }
      return `${where === '' ? 'arguments' : where} ${error.message}`;
    })
    .join('; ');
}

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

/** A refusal the client and its model can act on: what happened, and when to come back. */
function describeApiError(error: ApiError): string {
  const retry = error.retryAfter === undefined ? '' : ` Retry after ${error.retryAfter} s.`;
  return `${error.message} (${error.code}, like HTTP ${error.status}).${retry}`;
}

/**
 * The MCP tools of this gateway (docs/mcp.md), checked and described once; `serve-mcp-request.ts`
 * puts them behind a low-level SDK server per request (stateless: docs/decisions/0080). A tool that fails — a missing permission,
 * bad arguments, a refusal of its service — answers an `isError` result with a clear text, so
 * the model sees it; an unknown tool is the protocol error -32602 (MCP "Tools", error handling).
 */
export class McpToolbox {
  readonly #entries: Map<string, ToolEntry>;
  readonly #options: McpToolboxOptions;

  constructor(options: McpToolboxOptions) {
    this.#options = options;
    this.#entries = new Map(
      options.tools.map((tool) => [
        tool.name,
        {
          tool,
          validator: Compile(tool.inputSchema),
          definition: {
            name: tool.name,
            title: tool.annotations.title,
            description: tool.description,
            // Plain JSON: the schema objects may carry non-JSON markers of their builder.
            inputSchema: JSON.parse(JSON.stringify(tool.inputSchema)) as Tool['inputSchema'],
            outputSchema: JSON.parse(JSON.stringify(tool.outputSchema)) as NonNullable<
              Tool['outputSchema']
            >,
            annotations: tool.annotations,
          },
        },
      ]),
    );
  }

  get toolNames(): string[] {
    return [...this.#entries.keys()];
  }

  get serverInfo(): { name: string; version: string } {
    return this.#options.serverInfo;
  }

  /**
   * What `tools/list` answers to a token: only the tools it may call (docs/decisions/0120), so a
   * model is never offered a tool that can only fail.
   */
  definitionsFor(principal: Principal): Tool[] {
    const granted = principal.apiKey.permissions;
    return [...this.#entries.values()]
      .filter((entry) => granted.includes(entry.tool.permission))
      .map((entry) => entry.definition);
  }

  /** `tools/call` for one HTTP request, acting for its token. */
  async call(name: string, input: unknown, context: McpToolContext): Promise<CallToolResult> {
    const entry = this.#entries.get(name);
    if (entry === undefined) {
      // The SDK answers an error's own message and code; McpError would prefix its code.
      throw Object.assign(
        new Error(
          `Unknown tool "${name}"; tools/list names the tools: ${this.toolNames.join(', ')}.`,
        ),
        { code: jsonRpcErrorCodes.invalidParams },
      );
    }
    const { tool, validator } = entry;
    if (!context.principal.apiKey.permissions.includes(tool.permission)) {
      return failure(
        `This token lacks the "${tool.permission}" permission, which the ${name} tool needs.`,
      );
    }
    if (!validator.Check(input)) {
      return failure(
        `Invalid arguments for ${name}: ${describeInvalidArguments(validator, input)}.`,
      );
    }
    try {
      const answer = await tool.call(input, context);
      if (answer instanceof McpToolAnswer) {
        return { content: answer.content, structuredContent: answer.structuredContent };
      }
      return {
        content: [{ type: 'text', text: JSON.stringify(answer) }],
        structuredContent: answer,
      };
    } catch (error) {
      const apiError =
        error instanceof ApiError
          ? error
          : (toDependencyError(error) ?? new ApiError('internal', 'The tool failed unexpectedly.'));
      if (apiError.status >= 500) this.#options.logFailure(error, apiError, name);
      return failure(describeApiError(apiError));
    }
  }
}
