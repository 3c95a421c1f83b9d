import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Authenticator } from '../../auth/authenticator.ts';
import type { ModelCatalog } from '../../catalog/model-catalog.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { ModelListSchema, renderModel, renderModelList } from '../model-list.ts';
import { requireToken } from '../require-token.ts';

export interface ModelRouteDependencies {
  catalog: ModelCatalog;
  authenticator: Authenticator;
}

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
      const allowed = request.principal?.apiKey.allowedModels ?? null;
      return renderModelList(catalog, {
        ...(allowed !== null ? { only: allowed } : {}),
        ...(query.limit !== undefined ? { limit: Number(query.limit) } : {}),
        ...(query.after_id !== undefined ? { afterId: query.after_id } : {}),
        ...(query.before_id !== undefined ? { beforeId: query.before_id } : {}),
      });
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
      const allowed = request.principal?.apiKey.allowedModels ?? null;
      // A model the token may not use is as unknown to it as one the catalog lacks.
      if (model === undefined || (allowed !== null && !allowed.includes(model.id)))
        throw new ApiError('not_found', `No model "${modelId}".`);
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
