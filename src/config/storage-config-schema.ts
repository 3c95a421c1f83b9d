import { Type, type Static } from 'typebox';

const envName = (description: string) => Type.Optional(Type.String({ minLength: 1, description }));

export const FilesystemBlobStoreConfigSchema = Type.Object(
  {
    kind: Type.Literal('filesystem'),
    path: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Folder for the bytes (default: <dataDir>/blobs).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const S3BlobStoreConfigSchema = Type.Object(
  {
    kind: Type.Literal('s3'),
    bucket: Type.String({ minLength: 1 }),
    region: Type.String({ minLength: 1 }),
    endpoint: Type.Optional(
      Type.String({ minLength: 1, description: 'S3-compatible service URL; AWS when absent.' }),
    ),
    forcePathStyle: Type.Optional(
      Type.Boolean({ description: 'endpoint/bucket/key addressing (most self-hosted services).' }),
    ),
    prefix: Type.Optional(Type.String({ description: 'Prepended to every object key.' })),
    accessKeyIdEnv: envName('Environment variable with the access key id.'),
    secretAccessKeyEnv: envName('Environment variable with the secret access key.'),
    sessionTokenEnv: envName('Environment variable with a session token (temporary credentials).'),
  },
  { additionalProperties: false },
);

/** File storage (docs/api.md, "Stored files"; docs/decisions/0050). */
export const StorageConfigSchema = Type.Object(
  {
    blobStore: Type.Union([FilesystemBlobStoreConfigSchema, S3BlobStoreConfigSchema], {
      default: { kind: 'filesystem' },
    }),
    quotaBytes: Type.Integer({
      minimum: 0,
      default: 5 * 1024 ** 3,
      description: 'Quota of an account without one of its own (default 5 GiB).',
    }),
    retentionDays: Type.Integer({
      minimum: 1,
      default: 30,
      description: 'Retention of an account that has not chosen one.',
    }),
    maxRetentionDays: Type.Integer({
      minimum: 1,
      default: 365,
      description: 'Longest retention an account may choose (returned as max_retention_days).',
    }),
    sweepIntervalSeconds: Type.Integer({
      minimum: 1,
      default: 300,
      description: 'How often expired files and pending deletions are removed.',
    }),
    sweepBatchSize: Type.Integer({ minimum: 1, maximum: 10_000, default: 100 }),
    uploadTimeoutSeconds: Type.Integer({
      minimum: 1,
      default: 3600,
      description: 'An upload not committed by then is abandoned and its blob removed.',
    }),
    deleteRetrySeconds: Type.Integer({
      minimum: 1,
      default: 60,
      description: 'Wait before a failed blob deletion is retried.',
    }),
  },
  { additionalProperties: false, default: {} },
);

export type StorageConfig = Static<typeof StorageConfigSchema>;
export type S3BlobStoreConfig = Static<typeof S3BlobStoreConfigSchema>;
