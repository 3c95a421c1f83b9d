import { Type } from 'typebox';
import type { ModelCatalog } from '../../catalog/model-catalog.ts';
import { ModelListSchema, renderModelList } from '../../http/model-list.ts';
import type { McpTool } from './mcp-tool.ts';

const listModelsInputSchema = Type.Object(
  {
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 1000, description: 'Models per page; default all.' }),
    ),
    after_id: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Start after this model id (the last_id of a page).',
      }),
    ),
    before_id: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'End before this model id (the first_id of a page).',
      }),
    ),
  },
  { additionalProperties: false },
);

interface ListModelsInput {
  limit?: number;
  after_id?: string;
  before_id?: string;
}

/** `list_models`: the catalog page GET /v1/models answers, with its permission. */
export function createListModelsTool(catalog: ModelCatalog): McpTool {
  return {
    name: 'list_models',
    description:
      'Lists the models this gateway serves, as GET /v1/models does. Use an exact model id from this list.',
    annotations: {
      title: 'List models',
      readOnlyHint: true,
      idempotentHint: true,
      openWorldHint: false,
    },
    permission: 'model:read',
    inputSchema: listModelsInputSchema,
    outputSchema: ModelListSchema,
    async call(input, context) {
      const query = input as ListModelsInput;
      const allowed = context.principal.apiKey.allowedModels;
      return renderModelList(catalog, {
        ...(allowed !== null ? { only: allowed } : {}),
        ...(query.limit !== undefined ? { limit: query.limit } : {}),
        ...(query.after_id !== undefined ? { afterId: query.after_id } : {}),
        ...(query.before_id !== undefined ? { beforeId: query.before_id } : {}),
      });
    },
  };
}
