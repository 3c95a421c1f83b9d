import type { FastifyInstance, FastifyRequest } from 'fastify';

import type { Authenticator } from '../../auth/authenticator.ts';
import { requireToken } from '../../http/require-token.ts';
import { imageSourcesSchema } from './image-schema.ts';
import type { ImageSources } from './list-image-sources.ts';

export interface ImageSourcesRouteDependencies {
  authenticator: Authenticator;
  sources: ImageSources;
}

/**
 * GET /v1/images/sources. Unlike the other image routes it exists without an `images` section: a
 * client asks it whether image generation is available, and "not configured" is an answer
 * (docs/images.md).
 */
export async function imageSourcesRoutes(
  app: FastifyInstance,
  dependencies: ImageSourcesRouteDependencies,
): Promise<void> {
  app.get(
    '/v1/images/sources',
    {
      onRequest: requireToken(dependencies.authenticator, 'image:create'),
      schema: { operationId: 'listImageSources', response: { 200: imageSourcesSchema } },
    },
    async (request: FastifyRequest) => ({
      object: 'list',
      data: await dependencies.sources(
        request.principal as NonNullable<FastifyRequest['principal']>,
      ),
    }),
  );
}
