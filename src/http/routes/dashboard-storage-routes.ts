import type { FastifyInstance, FastifyRequest } from 'fastify';

import {
  listAssetPage,
  renderPolicy,
  renderStorageSummary,
  sendAssetContent,
  sendAssetDeletion,
  sendStorageCleanup,
  updateStoragePolicy,
  type AssetListQuery,
  type CleanupBody,
  type StoragePolicyChangeBody,
} from '../../features/storage/storage-routes.ts';
import {
  AssetIdParamsSchema,
  AssetListQuerySchema,
  CleanupRequestSchema,
  StoragePolicyChangeSchema,
} from '../../features/storage/storage-route-schemas.ts';
import type { StorageService } from '../../features/storage/storage-service.ts';
import { signedIn } from '../dashboard/signed-in.ts';

const hidden = { hide: true };

/**
 * The signed-in account's stored files: the same service, checks and answers as /v1/storage*,
 * with the account taken from the session instead of a token. Another account's file answers
 * as an unknown one, since every lookup is within the account.
 */
export async function dashboardStorageRoutes(
  app: FastifyInstance,
  { storage }: { storage: StorageService },
): Promise<void> {
  const accountOf = (request: FastifyRequest) => signedIn(request).account.id;

  app.get('/api/dashboard/storage', { schema: hidden }, async (request) =>
    renderStorageSummary(await storage.describeStorage(accountOf(request))),
  );

  app.get(
    '/api/dashboard/storage/assets',
    { schema: { ...hidden, querystring: AssetListQuerySchema } },
    async (request) => listAssetPage(storage, accountOf(request), request.query as AssetListQuery),
  );

  app.get(
    '/api/dashboard/storage/assets/:id/content',
    { schema: { ...hidden, params: AssetIdParamsSchema } },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendAssetContent(storage, accountOf(request), id, request, reply, 'no-store');
    },
  );

  app.delete(
    '/api/dashboard/storage/assets/:id',
    { schema: { ...hidden, params: AssetIdParamsSchema } },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendAssetDeletion(storage, accountOf(request), id, reply);
    },
  );

  app.get('/api/dashboard/storage/policy', { schema: hidden }, async (request) =>
    renderPolicy(await storage.getPolicy(accountOf(request))),
  );

  app.patch(
    '/api/dashboard/storage/policy',
    { schema: { ...hidden, body: StoragePolicyChangeSchema } },
    async (request) =>
      updateStoragePolicy(storage, accountOf(request), request.body as StoragePolicyChangeBody),
  );

  app.post(
    '/api/dashboard/storage/cleanup',
    { schema: { ...hidden, body: CleanupRequestSchema } },
    async (request, reply) =>
      sendStorageCleanup(storage, accountOf(request), request.body as CleanupBody, reply),
  );
}
