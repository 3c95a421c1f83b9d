import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';

import type { Authenticator } from '../../auth/authenticator.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import { requireToken } from '../../http/require-token.ts';
import type { Asset } from './asset.ts';
import { parseByteRange } from './parse-byte-range.ts';
import { runStorageCleanup } from './run-storage-cleanup.ts';
import type { StoragePolicy, StorageService, StorageSummary } from './storage-service.ts';
import {
  AssetIdParamsSchema,
  AssetListQuerySchema,
  AssetListSchema,
  CleanupRequestSchema,
  CleanupResultSchema,
  PendingDeletionSchema,
  StorageErrorSchema,
  StoragePolicyChangeSchema,
  StoragePolicySchema,
  StorageSummarySchema,
} from './storage-route-schemas.ts';

export interface StorageRouteDependencies {
  authenticator: Authenticator;
  storage: StorageService;
}

const errors = { '4xx': StorageErrorSchema, '5xx': StorageErrorSchema };
const defaultListLimit = 20;

function toSeconds(epochMs: number): number {
  return Math.floor(epochMs / 1000);
}

export function renderAsset(asset: Asset) {
  return {
    id: asset.id,
    object: 'storage.asset' as const,
    name: asset.name,
    size: asset.size,
    content_type: asset.contentType,
    sha256: asset.sha256,
    source: asset.source,
    folder: asset.folder,
    created_at: toSeconds(asset.createdAt),
    delete_at: toSeconds(asset.deleteAt),
    protected: asset.protected,
  };
}

export function renderPolicy(policy: StoragePolicy) {
  return {
    object: 'storage.policy' as const,
    retention_days: policy.retentionDays,
    max_retention_days: policy.maxRetentionDays,
  };
}

/** RFC 6266: an ASCII fallback and the exact name in RFC 8187 encoding. */
function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

function accountOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal === undefined) throw new ApiError('missing_token');
  return principal.account.id;
}

/**
 * The storage routes (docs/api.md). Any valid credits token of the account may use them
 * (docs/decisions/0051); every id is looked up within the token's account, so another
 * account's file answers exactly as an unknown one.
 */
export async function storageRoutes(
  app: FastifyInstance,
  dependencies: StorageRouteDependencies,
): Promise<void> {
  const { storage } = dependencies;
  const preHandler = requireToken(dependencies.authenticator, null);

  app.get(
    '/v1/storage',
    {
      preHandler,
      schema: {
        operationId: 'getStorage',
        summary: 'Quota, usage and retention of the account’s file storage.',
        response: { 200: StorageSummarySchema, ...errors },
      },
    },
    async (request) => renderStorageSummary(await storage.describeStorage(accountOf(request))),
  );

  app.get(
    '/v1/storage/assets',
    {
      preHandler,
      schema: {
        operationId: 'listStorageAssets',
        summary: 'The account’s files, newest first.',
        querystring: AssetListQuerySchema,
        response: { 200: AssetListSchema, ...errors },
      },
    },
    async (request) => listAssetPage(storage, accountOf(request), request.query as AssetListQuery),
  );

  app.get(
    '/v1/storage/assets/:id/content',
    {
      preHandler,
      schema: {
        operationId: 'downloadStorageAsset',
        summary: 'The file’s bytes; supports a single byte range and If-None-Match.',
        params: AssetIdParamsSchema,
        response: {
          200: { description: 'The whole file.', content: { '*/*': { schema: Type.String() } } },
          206: {
            description: 'The requested range.',
            content: { '*/*': { schema: Type.String() } },
          },
          304: { description: 'The ETag given in If-None-Match still matches.', type: 'null' },
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendAssetContent(storage, accountOf(request), id, request, reply);
    },
  );

  app.delete(
    '/v1/storage/assets/:id',
    {
      preHandler,
      schema: {
        operationId: 'deleteStorageAsset',
        summary: 'Deletes a file; 409 while an active job uses it.',
        params: AssetIdParamsSchema,
        response: {
          204: { description: 'Deleted; its space is free.', type: 'null' },
          202: PendingDeletionSchema,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params as { id: string };
      return sendAssetDeletion(storage, accountOf(request), id, reply);
    },
  );

  app.get(
    '/v1/storage/policy',
    {
      preHandler,
      schema: {
        operationId: 'getStoragePolicy',
        summary: 'The account’s retention policy.',
        response: { 200: StoragePolicySchema, ...errors },
      },
    },
    async (request) => renderPolicy(await storage.getPolicy(accountOf(request))),
  );

  app.patch(
    '/v1/storage/policy',
    {
      preHandler,
      schema: {
        operationId: 'updateStoragePolicy',
        summary: 'Changes the retention policy.',
        body: StoragePolicyChangeSchema,
        response: { 200: StoragePolicySchema, ...errors },
      },
    },
    async (request) =>
      updateStoragePolicy(storage, accountOf(request), request.body as StoragePolicyChangeBody),
  );

  app.post(
    '/v1/storage/cleanup',
    {
      preHandler,
      schema: {
        operationId: 'cleanupStorage',
        summary: 'Deletes (or previews deleting) up to 100 files; protected files are skipped.',
        body: CleanupRequestSchema,
        response: { 200: CleanupResultSchema, 202: CleanupResultSchema, ...errors },
      },
    },
    async (request, reply) =>
      sendStorageCleanup(storage, accountOf(request), request.body as CleanupBody, reply),
  );
}

export interface AssetListQuery {
  after?: string;
  limit?: string;
}

export interface CleanupBody {
  asset_ids: string[];
  dry_run: boolean;
}

export interface StoragePolicyChangeBody {
  retention_days: number;
  apply_to_existing?: boolean;
}

/*
 * The answers below are shared with the dashboard's storage routes, which act for the signed-in
 * account instead of a token's: one rendering of each, so both stay the same.
 */

export function renderStorageSummary(summary: StorageSummary) {
  return {
    object: 'storage' as const,
    quota_bytes: summary.quotaBytes,
    used_bytes: summary.usedBytes,
    available_bytes: Math.max(0, summary.quotaBytes - summary.usedBytes),
    file_count: summary.fileCount,
    retention_days: summary.retentionDays,
    max_retention_days: summary.maxRetentionDays,
  };
}

export async function listAssetPage(
  storage: StorageService,
  accountId: string,
  query: AssetListQuery,
) {
  const page = await storage.listAssets(accountId, {
    ...(query.after === undefined ? {} : { after: query.after }),
    limit: query.limit === undefined ? defaultListLimit : Number(query.limit),
  });
  return {
    object: 'list' as const,
    data: page.data.map(renderAsset),
    has_more: page.hasMore,
    next_cursor: page.nextCursor,
  };
}

/** The account's file, whole or one byte range, honouring If-None-Match and If-Range. */
export async function sendAssetContent(
  storage: StorageService,
  accountId: string,
  id: string,
  request: FastifyRequest,
  reply: FastifyReply,
  cacheControl = 'private, no-cache',
): Promise<FastifyReply> {
  const asset = await storage.getAsset(accountId, id);
  if (asset === undefined) throw new ApiError('not_found', 'No such file.');
  const etag = `"${asset.sha256}"`;
  reply
    .header('etag', etag)
    .header('accept-ranges', 'bytes')
    .header('cache-control', cacheControl)
    .header('x-content-type-options', 'nosniff')
    .header('content-disposition', contentDisposition(asset.name));
  const ifNoneMatch = request.headers['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) {
    return reply.code(304).send();
  }
  // RFC 9110 §13.1.5: a Range under a stale If-Range gets the whole file.
  const ifRange = request.headers['if-range'];
  const rangeHeader = ifRange === undefined || ifRange === etag ? request.headers.range : undefined;
  const requested = parseByteRange(rangeHeader, asset.size);
  if (requested.kind === 'unsatisfiable') {
    reply.header('content-range', `bytes */${asset.size}`);
    throw new ApiError('range_not_satisfiable');
  }
  const range = requested.kind === 'range' ? requested.range : undefined;
  const body = await storage.openContent(asset, range);
  if (body === undefined) throw new ApiError('not_found', 'No such file.');
  reply.type(asset.contentType);
  if (range === undefined) {
    return reply.header('content-length', String(asset.size)).send(body);
  }
  return reply
    .code(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${asset.size}`)
    .header('content-length', String(range.end - range.start + 1))
    .send(body);
}

export async function sendAssetDeletion(
  storage: StorageService,
  accountId: string,
  id: string,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const removed = await storage.deleteAsset(accountId, id);
  if (removed.outcome === 'deleted') return reply.code(204).send();
  return reply
    .code(202)
    .send({ id, object: 'storage.asset.deletion' as const, pending: true as const });
}

export async function updateStoragePolicy(
  storage: StorageService,
  accountId: string,
  body: StoragePolicyChangeBody,
) {
  const policy = await storage.updatePolicy(accountId, {
    retentionDays: body.retention_days,
    applyToExisting: body.apply_to_existing ?? false,
  });
  return renderPolicy(policy);
}

export async function sendStorageCleanup(
  storage: StorageService,
  accountId: string,
  body: CleanupBody,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const result = await runStorageCleanup(storage, accountId, {
    assetIds: body.asset_ids,
    dryRun: body.dry_run,
  });
  return reply.code(result.pending.length > 0 ? 202 : 200).send({
    object: 'storage.cleanup' as const,
    dry_run: result.dryRun,
    deleted: result.deleted,
    pending: result.pending,
    skipped: result.skipped,
    freed_bytes: result.freedBytes,
  });
}
