import { Type } from 'typebox';
import { readSearchParameters, runSearch, type SearchRunner } from '../search/run-search.ts';
import {
  searchLimits,
  searchRequestProperties,
  searchResponseSchema,
} from '../search/search-schema.ts';
import type { SearchParameters } from '../search/search-types.ts';
import type { McpTool } from './mcp-tool.ts';

/** POST /v1/search's body (docs/search.md) plus the x-request-id header as an optional argument. */
const searchInputSchema = Type.Object(
  {
    ...searchRequestProperties,
    request_id: Type.Optional(
      Type.String({
        minLength: searchLimits.requestId.min,
        maxLength: searchLimits.requestId.max,
        pattern: searchLimits.requestId.pattern.source,
        description:
          'Idempotency identifier, as the x-request-id header of POST /v1/search: the same id with the same parameters within 15 minutes replays the answer without a charge; with other parameters the call fails.',
      }),
    ),
  },
  { additionalProperties: false },
);

type SearchInput = Partial<SearchParameters> & { query: string; request_id?: string };

/**
 * `search`: SearchService behind POST /v1/search (docs/search.md): the same price held and
 * settled, the same request limits, the same replay under an id.
 */
export function createSearchTool(runner: SearchRunner): McpTool {
  return {
    name: 'search',
    description:
      'Searches the web and answers with titles, URLs and plain-text snippets. Each search is paid from the credits balance.',
    annotations: {
      title: 'Web search',
      readOnlyHint: true,
      // A repeat is a new paid search unless it carries the same request_id.
      idempotentHint: false,
      openWorldHint: true,
    },
    permission: 'search:create',
    inputSchema: searchInputSchema,
    outputSchema: searchResponseSchema,
    async call(input, context) {
      const { request_id: key, ...fields } = input as SearchInput;
      const run = await runSearch(runner, {
        parameters: readSearchParameters(fields),
        principal: context.principal,
        requestId: context.requestId,
        key,
      });
      return JSON.parse(run.body) as Record<string, unknown>;
    },
  };
}
