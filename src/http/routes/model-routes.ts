import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Authenticator } from '../../auth/authenticator.ts';
import type { CatalogModel, ModelCatalog } from '../../catalog/model-catalog.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { requireToken } from '../require-token.ts';

export interface ModelRouteDependencies {
  catalog: ModelCatalog;
  authenticator: Authenticator;
}

const ModelSchema = Type.Object(
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

const ModelListSchema = Type.Object(
  {
    data: Type.Array(ModelSchema),
    object: Type.String({ default: 'list' }),
    has_more: Type.Boolean(),
    first_id: Type.Union([Type.String(), Type.Null()]),
    last_id: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: true, title: 'ModelList' },
);

const ErrorShapeA = Type.Object(
  {
    error: Type.Object(
      {
        type: Type.String(),
        message: Type.String(),
        code: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true, title: 'ErrorA' },
);

/**
 * Both dialects read the same object: OpenAI fields (`object`, `created`, `owned_by`) and
 * Anthropic ones (`type`, `display_name`, `created_at`). The limits are extra fields (spec §2.2
 * allows them): the Codex installer writes them into Codex's model metadata (issue 14 §7).
 */
function renderModel(model: CatalogModel) {
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

export async function modelRoutes(
  app: FastifyInstance,
  dependencies: ModelRouteDependencies,
): Promise<void> {
  const { catalog, authenticator } = dependencies;

  app.get(
    '/v1/models',
    {
      onRequest: requireToken(authenticator, 'model:read', { optional: true }),
      schema: {
        operationId: 'listModels',
        summary: 'List the models this gateway serves (public credits catalog).',
        querystring: Type.Object(
          {
            // Query values are strings; the validator does not coerce (bodies must stay as sent).
            limit: Type.Optional(
              Type.String({ pattern: '^(?:[1-9][0-9]{0,2}|1000)$', description: '1 to 1000' }),
            ),
            after_id: Type.Optional(Type.String({ minLength: 1 })),
            before_id: Type.Optional(Type.String({ minLength: 1 })),
          },
          { additionalProperties: true },
        ),
        response: { 200: ModelListSchema, '4xx': ErrorShapeA, '5xx': ErrorShapeA },
      },
    },
    async (request) => {
      const query = request.query as { limit?: string; after_id?: string; before_id?: string };
      // docs/decisions/0002: without `limit` the whole catalog, because the chat-style SDKs read one page.
      const page = catalog.page({
        limit: query.limit === undefined ? maximumLimit : Number(query.limit),
        ...(query.after_id !== undefined ? { afterId: query.after_id } : {}),
        ...(query.before_id !== undefined ? { beforeId: query.before_id } : {}),
      });
      const data = page.data.map(renderModel);
      return {
        data,
        object: 'list',
        has_more: page.hasMore,
        first_id: data[0]?.id ?? null,
        last_id: data.at(-1)?.id ?? null,
      };
    },
  );

  app.get(
    '/v1/models/:model_id',
    {
      onRequest: requireToken(authenticator, 'model:read', { optional: true }),
      schema: { hide: true },
    },
    async (request) => {
      const { model_id: modelId } = request.params as { model_id: string };
      const model = catalog.get(modelId);
      if (model === undefined) throw new ApiError('not_found', `No model "${modelId}".`);
      return renderModel(model);
    },
  );

  app.get('/api/public/models', { schema: { hide: true } }, async () => ({
    object: 'list',
    data: catalog.all().map((model) => ({
      ...renderModel(model),
      capabilities: model.capabilities,
      // Credits per million tokens, as configured.
      pricing: {
        input: model.pricing.input,
        output: model.pricing.output,
        cache_read: model.prices.cacheRead / 1_000_000,
        cache_write_5m: model.prices.cacheWrite5m / 1_000_000,
        cache_write_1h: model.prices.cacheWrite1h / 1_000_000,
        unit: 'credits per million tokens',
      },
    })),
  }));
}
