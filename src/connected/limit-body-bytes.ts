import { Transform, type TransformCallback } from 'node:stream';

/** Raised inside the forwarded body stream when it grows past the limit. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

/**
 * A pass-through that fails once more than `maxBytes` went through: a streamed body has no
 * parser to enforce Fastify's body limit, and a missing or false Content-Length must not let a
 * client push an unbounded upload to the upstream.
 */
export function limitBodyBytes(maxBytes: number, onExceeded: () => void): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      if (seen > maxBytes) {
        // Told before the stream fails, so whoever sees the failure can already name it.
        onExceeded();
        callback(new BodyTooLargeError(`The body is larger than ${maxBytes} bytes.`));
        return;
      }
      callback(null, chunk);
    },
  });
}
