import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { BlobStore } from '../../src/features/storage/blob-store.ts';

export interface BlobStoreHarness {
  store: BlobStore;
  close(): Promise<void>;
}

let sequence = 0;
function uniqueKey(): string {
  sequence += 1;
  return `contract/k${process.pid}x${Date.now().toString(36)}x${sequence}`;
}

function streamOf(...chunks: Buffer[]): Readable {
  return Readable.from(chunks);
}

/** The BlobStore port's contract (docs/decisions/0050), run against every adapter. */
export function describeBlobStoreContract(
  name: string,
  openHarness: () => Promise<BlobStoreHarness>,
): void {
  describe(`BlobStore contract (${name})`, () => {
    let harness: BlobStoreHarness;
    beforeAll(async () => {
      harness = await openHarness();
    });
    afterAll(async () => harness?.close());
    const store = () => harness.store;

    it('puts a stream and gets the same bytes back, with its size', async () => {
      const key = uniqueKey();
      const bytes = Buffer.from('hello, stored world \u00e9\u0000\u00ff', 'utf8');
      await store().put(key, streamOf(bytes.subarray(0, 5), bytes.subarray(5)), {
        contentType: 'text/plain',
      });
      const read = await store().get(key);
      expect(read).toBeDefined();
      expect(await buffer(read as Readable)).toEqual(bytes);
      expect(await store().stat(key)).toEqual({ size: bytes.length });
    });

    it('stores an empty blob', async () => {
      const key = uniqueKey();
      await store().put(key, streamOf(), { contentType: 'application/octet-stream' });
      expect(await store().stat(key)).toEqual({ size: 0 });
      expect((await buffer((await store().get(key)) as Readable)).length).toBe(0);
    });

    it('keeps a blob larger than one upload part whole', async () => {
      const key = uniqueKey();
      // 9 MiB crosses the S3 adapter's 8 MiB part size; random bytes catch a reordered part.
      const chunks = Array.from({ length: 9 }, (_, index) =>
        createHash('sha512')
          .update(String(index))
          .digest()
          .toString('hex')
          .repeat(8192)
          .slice(0, 1024 * 1024),
      ).map((text) => Buffer.from(text));
      const whole = Buffer.concat(chunks);
      await store().put(key, streamOf(...chunks), { contentType: 'application/octet-stream' });
      expect(await store().stat(key)).toEqual({ size: whole.length });
      const read = await buffer((await store().get(key)) as Readable);
      expect(read.equals(whole)).toBe(true);
    });

    it('reads an inclusive byte range', async () => {
      const key = uniqueKey();
      await store().put(key, streamOf(Buffer.from('0123456789')), { contentType: 'text/plain' });
      const middle = await store().get(key, { start: 2, end: 5 });
      expect((await buffer(middle as Readable)).toString()).toBe('2345');
      const last = await store().get(key, { start: 9, end: 9 });
      expect((await buffer(last as Readable)).toString()).toBe('9');
    });

    it('replaces a blob written again under the same key', async () => {
      const key = uniqueKey();
      await store().put(key, streamOf(Buffer.from('first version')), { contentType: 'text/plain' });
      await store().put(key, streamOf(Buffer.from('second')), { contentType: 'text/plain' });
      expect((await buffer((await store().get(key)) as Readable)).toString()).toBe('second');
    });

    it('answers undefined for a missing key', async () => {
      const key = uniqueKey();
      expect(await store().get(key)).toBeUndefined();
      expect(await store().stat(key)).toBeUndefined();
    });

    it('deletes, and deleting again or deleting a missing key succeeds', async () => {
      const key = uniqueKey();
      await store().put(key, streamOf(Buffer.from('bye')), { contentType: 'text/plain' });
      await store().delete(key);
      expect(await store().stat(key)).toBeUndefined();
      expect(await store().get(key)).toBeUndefined();
      await expect(store().delete(key)).resolves.toBeUndefined();
    });

    it('leaves no blob when the stream fails part way', async () => {
      const key = uniqueKey();
      const failing = new Readable({
        read() {
          this.push(Buffer.alloc(1024, 1));
          this.destroy(new Error('client went away'));
        },
      });
      await expect(store().put(key, failing, { contentType: 'text/plain' })).rejects.toThrow();
      expect(await store().stat(key)).toBeUndefined();
    });

    it('refuses keys the service could not have built', async () => {
      for (const key of ['../escape', 'a/../../b', '/absolute', 'a//b', 'A', 'a/.hidden', '']) {
        await expect(store().stat(key)).rejects.toThrow(RangeError);
        await expect(
          store().put(key, streamOf(Buffer.from('x')), { contentType: 'text/plain' }),
        ).rejects.toThrow(RangeError);
      }
    });
  });
}
