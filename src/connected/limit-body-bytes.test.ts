import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodyTooLargeError, limitBodyBytes } from './limit-body-bytes.ts';

async function pump(chunks: Buffer[], maxBytes: number) {
  let exceeded = 0;
  const received: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk);
      callback();
    },
  });
  const outcome = await pipeline(
    Readable.from(chunks),
    limitBodyBytes(maxBytes, () => (exceeded += 1)),
    sink,
  ).then(
    () => undefined,
    (error: unknown) => error,
  );
  return { outcome, exceeded, received: Buffer.concat(received) };
}

describe('limitBodyBytes', () => {
  it('passes a body of exactly the limit unchanged', async () => {
    const { outcome, exceeded, received } = await pump([Buffer.from('abc'), Buffer.from('de')], 5);
    expect(outcome).toBeUndefined();
    expect(exceeded).toBe(0);
    expect(received.toString()).toBe('abcde');
  });

  it('fails on the chunk that crosses the limit and reports it once', async () => {
    const { outcome, exceeded, received } = await pump(
      [Buffer.from('abc'), Buffer.from('def'), Buffer.from('ghi')],
      5,
    );
    expect(outcome).toBeInstanceOf(BodyTooLargeError);
    expect(exceeded).toBe(1);
    expect(received.toString()).toBe('abc');
  });
});
