import { Type } from 'typebox';

import { assetSources } from './asset.ts';

/** Shape A (docs/api.md): every storage route is a Bearer route. */
export const StorageErrorSchema = Type.Object(
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
  { additionalProperties: true, title: 'StorageError' },
);

export const AssetSchema = Type.Object(
  {
    id: Type.String({ description: 'Unguessable id, prefixed asset_.' }),
    object: Type.Literal('storage.asset'),
    name: Type.String(),
    size: Type.Integer({ minimum: 0, description: 'Bytes.' }),
    content_type: Type.String(),
    sha256: Type.String({ description: 'Hex SHA-256 of the bytes; the download ETag.' }),
    source: Type.Union(
      assetSources.map((source) => Type.Literal(source)),
      { description: 'What produced the file.' },
    ),
    folder: Type.String({ description: 'Virtual folder.' }),
    created_at: Type.Integer({ description: 'Epoch seconds.' }),
    delete_at: Type.Integer({
      description: 'Epoch seconds at which the file is deleted (retention policy).',
    }),
    protected: Type.Boolean({
      description: 'True while an active job uses the file; it cannot be deleted meanwhile.',
    }),
  },
  { additionalProperties: false, title: 'StorageAsset' },
);

export const AssetListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(AssetSchema),
    has_more: Type.Boolean(),
    next_cursor: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `after` for the next page; null on the last page.',
    }),
  },
  { additionalProperties: false, title: 'StorageAssetList' },
);

export const AssetListQuerySchema = Type.Object(
  {
    after: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    // Query values are strings; the validator does not coerce.
    limit: Type.Optional(
      Type.String({
        pattern: '^(?:[1-9]|[1-9][0-9]|1[0-9][0-9]|200)$',
        description: 'Integer 1 to 200 (docs/api.md); default 20.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const StorageSummarySchema = Type.Object(
  {
    object: Type.Literal('storage'),
    quota_bytes: Type.Integer({ minimum: 0 }),
    used_bytes: Type.Integer({
      minimum: 0,
      description: 'Includes files whose deletion is still pending.',
    }),
    available_bytes: Type.Integer({ minimum: 0 }),
    file_count: Type.Integer({ minimum: 0 }),
    retention_days: Type.Integer({ minimum: 1 }),
    max_retention_days: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false, title: 'StorageSummary' },
);

export const StoragePolicySchema = Type.Object(
  {
    object: Type.Literal('storage.policy'),
    retention_days: Type.Integer({ minimum: 1 }),
    max_retention_days: Type.Integer({ minimum: 1 }),
  },
  { additionalProperties: false, title: 'StoragePolicy' },
);

export const StoragePolicyChangeSchema = Type.Object(
  {
    retention_days: Type.Integer({ minimum: 1, description: 'At most max_retention_days.' }),
    apply_to_existing: Type.Optional(
      Type.Boolean({
        description:
          'Shortens existing deletion dates too (never lengthens); may delete old files at once.',
      }),
    ),
  },
  { additionalProperties: false, title: 'StoragePolicyChange' },
);

export const CleanupRequestSchema = Type.Object(
  {
    asset_ids: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 }),
    dry_run: Type.Boolean({ description: 'true previews, false deletes (irreversible).' }),
  },
  { additionalProperties: false, title: 'StorageCleanupRequest' },
);

export const CleanupResultSchema = Type.Object(
  {
    object: Type.Literal('storage.cleanup'),
    dry_run: Type.Boolean(),
    deleted: Type.Array(Type.String(), {
      description: 'Deleted files (for a dry run: the files that would be deleted).',
    }),
    pending: Type.Array(Type.String(), {
      description: 'Hidden and queued for retry; their space is freed once deleted (202).',
    }),
    skipped: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          reason: Type.Union([Type.Literal('protected'), Type.Literal('not_found')]),
        },
        { additionalProperties: false },
      ),
    ),
    freed_bytes: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false, title: 'StorageCleanupResult' },
);

export const PendingDeletionSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('storage.asset.deletion'),
    pending: Type.Literal(true),
  },
  { additionalProperties: false, title: 'StoragePendingDeletion' },
);

export const AssetIdParamsSchema = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
});
