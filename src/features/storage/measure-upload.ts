import { createHash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** The stream gave more bytes than the account had left (its quota). */
export class UploadOverQuota extends Error {
  constructor() {
    super('The upload exceeds the storage quota');
    this.name = 'UploadOverQuota';
  }
}

/**
 * Passes bytes through while counting and hashing them, and fails as soon as the count passes
 * `limitBytes`, so a write over quota stops at the limit instead of storing the rest first.
 */
export class MeasureUpload extends Transform {
  readonly #hash = createHash('sha256');
  readonly #limitBytes: number;
  #size = 0;

  constructor(limitBytes: number) {
    super();
    this.#limitBytes = limitBytes;
  }

  get size(): number {
    return this.#size;
  }

  /** Hex SHA-256 of every byte that passed; read once the stream has ended. */
  digest(): string {
    return this.#hash.digest('hex');
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.#size += chunk.length;
    if (this.#size > this.#limitBytes) {
      callback(new UploadOverQuota());
      return;
    }
    this.#hash.update(chunk);
    callback(null, chunk);
  }
}
