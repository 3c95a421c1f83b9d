import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';

import {
  assertBlobKey,
  type BlobStore,
  type ByteRange,
} from '../../features/storage/blob-store.ts';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** Any S3-compatible service (MinIO, R2, Ceph…); AWS itself when absent. */
  endpoint?: string;
  /** Path-style addressing (`endpoint/bucket/key`), which most self-hosted services need. */
  forcePathStyle?: boolean;
  /** Explicit credentials; the SDK's default chain (environment, instance role) when absent. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Prepended to every key, so one bucket can serve several deployments. */
  prefix?: string;
}

/** S3 refuses multipart parts under 5 MiB except the last; 8 MiB keeps memory bounded. */
const partBytes = 8 * 1024 * 1024;

function isNotFound(error: unknown): boolean {
  const name = (error as { name?: string }).name;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return name === 'NoSuchKey' || name === 'NotFound' || status === 404;
}

/**
 * The scale-out BlobStore (docs/architecture.md) on @aws-sdk/client-s3. An object appears only when
 * its PUT or its multipart upload completes, so readers never see a partial blob. Bodies are cut
 * into parts as they stream in: a small blob costs one PUT, a large one never sits in memory whole.
 */
export class S3BlobStore implements BlobStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #prefix: string;

  constructor(options: S3BlobStoreOptions) {
    this.#client = new S3Client({
      region: options.region,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
      forcePathStyle: options.forcePathStyle ?? false,
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
    });
    this.#bucket = options.bucket;
    this.#prefix = options.prefix ?? '';
  }

  async put(key: string, body: Readable, options: { contentType: string }): Promise<void> {
    const objectKey = this.#objectKey(key);
    let buffered: Buffer[] = [];
    let bufferedBytes = 0;
    let uploadId: string | undefined;
    const parts: CompletedPart[] = [];
    const flushPart = async () => {
      uploadId ??= (
        await this.#client.send(
          new CreateMultipartUploadCommand({
            Bucket: this.#bucket,
            Key: objectKey,
            ContentType: options.contentType,
          }),
        )
      ).UploadId;
      const PartNumber = parts.length + 1;
      const answer = await this.#client.send(
        new UploadPartCommand({
          Bucket: this.#bucket,
          Key: objectKey,
          UploadId: uploadId,
          PartNumber,
          Body: Buffer.concat(buffered, bufferedBytes),
        }),
      );
      parts.push({ PartNumber, ETag: answer.ETag });
      buffered = [];
      bufferedBytes = 0;
    };
    try {
      for await (const chunk of body) {
        const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
        buffered.push(bytes);
        bufferedBytes += bytes.length;
        if (bufferedBytes >= partBytes) await flushPart();
      }
      if (uploadId === undefined) {
        await this.#client.send(
          new PutObjectCommand({
            Bucket: this.#bucket,
            Key: objectKey,
            ContentType: options.contentType,
            Body: Buffer.concat(buffered, bufferedBytes),
          }),
        );
        return;
      }
      if (bufferedBytes > 0) await flushPart();
      await this.#client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.#bucket,
          Key: objectKey,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts },
        }),
      );
    } catch (error) {
      if (uploadId !== undefined) {
        // Parts of an abandoned upload are billed storage until aborted.
        await this.#client
          .send(
            new AbortMultipartUploadCommand({
              Bucket: this.#bucket,
              Key: objectKey,
              UploadId: uploadId,
            }),
          )
          .catch(() => {});
      }
      throw error;
    }
  }

  async get(key: string, range?: ByteRange): Promise<Readable | undefined> {
    try {
      const answer = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: this.#objectKey(key),
          ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
        }),
      );
      return answer.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async stat(key: string): Promise<{ size: number } | undefined> {
    try {
      const answer = await this.#client.send(
        new HeadObjectCommand({ Bucket: this.#bucket, Key: this.#objectKey(key) }),
      );
      return { size: answer.ContentLength ?? 0 };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 for a missing key too, so a retried delete is harmless.
    await this.#client.send(
      new DeleteObjectCommand({ Bucket: this.#bucket, Key: this.#objectKey(key) }),
    );
  }

  /** Closes the SDK's connection pool. */
  close(): void {
    this.#client.destroy();
  }

  #objectKey(key: string): string {
    assertBlobKey(key);
    return `${this.#prefix}${key}`;
  }
}
