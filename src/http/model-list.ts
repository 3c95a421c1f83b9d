import { Type } from 'typebox';
import type { CatalogModel, ModelCatalog } from '../catalog/model-catalog.ts';

export const ModelSchema = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    object: Type.String(),
    type: Type.String(),
    display_name: Type.String(),
    created: Type.Integer(),
    created_at: Type.String(),
    owned_by: Type.String(),
    context_window: Type.Integer({ minimum: 1 }),
    max_output_tokens: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: true, title: 'Model' },
);

export const ModelListSchema = Type.Object(
  {
    data: Type.Array(ModelSchema),
    object: Type.String({ default: 'list' }),
    has_more: Type.Boolean(),
    first_id: Type.Union([Type.String(), Type.Null()]),
    last_id: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: true, title: 'ModelList' },
);

/**
 * Both dialects read the same object: OpenAI fields (`object`, `created`, `owned_by`) and
 * Anthropic ones (`type`, `display_name`, `created_at`). The limits are extra fields (the model
 * list allows them): the Codex installer writes them into Codex's model metadata
 * (docs/decisions/0036).
 */
export function renderModel(model: CatalogModel) {
  return {
    id: model.id,
    object: 'model',
    type: 'model',
    display_name: model.displayName,
    created: model.created,
    created_at: new Date(model.created * 1000).toISOString(),
    owned_by: model.ownedBy,
    context_window: model.contextWindow,
    max_output_tokens: model.maxOutputTokens,
  };
}

const maximumLimit = 1000;

/**
 * One page of the catalog as GET /v1/models answers it; the MCP `list_models` tool
 * answers the same object. `only` keeps a token that may use some models to those it may use.
 */
export function renderModelList(
  catalog: ModelCatalog,
  options: { limit?: number; afterId?: string; beforeId?: string; only?: readonly string[] },
) {
  // docs/decisions/0002: without `limit` the whole catalog, because the chat-style SDKs read one page.
  const page = catalog.page({ ...options, limit: options.limit ?? maximumLimit });
  const data = page.data.map(renderModel);
  return {
    data,
    object: 'list',
    has_more: page.hasMore,
    first_id: data[0]?.id ?? null,
    last_id: data.at(-1)?.id ?? null,
  };
}
