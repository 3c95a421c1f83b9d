import type { S3BlobStoreConfig } from './storage-config-schema.ts';

export interface BlobStoreCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * The S3 credentials from the environment variables the configuration names, or undefined when
 * none are named (the SDK's own chain then applies: AWS_* variables, instance roles). Naming
 * one of the pair without the other, or naming an empty variable, is a start-up error.
 */
export function readBlobStoreCredentials(
  config: S3BlobStoreConfig,
  env: NodeJS.ProcessEnv,
): BlobStoreCredentials | undefined {
  if (config.accessKeyIdEnv === undefined && config.secretAccessKeyEnv === undefined) {
    return undefined;
  }
  const read = (name: string | undefined, key: string) => {
    if (name === undefined) throw new Error(`storage.blobStore.${key} is required with its pair`);
    const value = env[name];
    if (value === undefined || value === '') {
      throw new Error(`storage.blobStore.${key}: environment variable ${name} is not set`);
    }
    return value;
  };
  const sessionToken =
    config.sessionTokenEnv === undefined
      ? undefined
      : read(config.sessionTokenEnv, 'sessionTokenEnv');
  return {
    accessKeyId: read(config.accessKeyIdEnv, 'accessKeyIdEnv'),
    secretAccessKey: read(config.secretAccessKeyEnv, 'secretAccessKeyEnv'),
    ...(sessionToken === undefined ? {} : { sessionToken }),
  };
}
