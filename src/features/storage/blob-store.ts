import type { Readable } from 'node:stream';

/** An inclusive byte range, as HTTP `Range: bytes=start-end` names it (RFC 9110 §14.1.2). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where the bytes of stored files live (docs/architecture.md): the local filesystem by default, an
 * S3-compatible object store when several gateway processes share the work. Keys are built by
 * the storage service from ids it generated (`blobKeyForAsset`), never from client input.
 */
export interface BlobStore {
  /** Writes the whole stream under `key`; a reader never sees a partly written blob. */
  put(key: string, body: Readable, options: { contentType: string }): Promise<void>;
  /** The bytes (or the inclusive range of them), or undefined when no blob has this key. */
  get(key: string, range?: ByteRange): Promise<Readable | undefined>;
  /** The blob's size, or undefined when no blob has this key. */
  stat(key: string): Promise<{ size: number } | undefined>;
  /** Removes the blob; removing a missing blob succeeds (retries must be harmless). */
  delete(key: string): Promise<void>;
}

const blobKeyPattern = /^[a-z0-9][a-z0-9_-]*(?:\/[a-z0-9][a-z0-9_-]*)*$/;

/** Adapters refuse any key the service could not have built: no dots, no empty segments. */
export function assertBlobKey(key: string): void {
  if (!blobKeyPattern.test(key) || key.length > 200) {
    throw new RangeError(`Not a blob key: ${JSON.stringify(key)}`);
  }
}
