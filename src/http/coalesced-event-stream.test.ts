import { setTimeout as sleep } from 'node:timers/promises';

import { describe, expect, it } from 'vitest';

import { CoalescedEventStream } from './coalesced-event-stream.ts';

async function chunksOf(stream: CoalescedEventStream): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of stream) chunks.push(String(chunk));
  return chunks;
}

describe('CoalescedEventStream', () => {
  it('hands on the frames of one event-loop turn as one chunk, and later frames promptly apart', async () => {
    async function* frames() {
      yield 'a\n\n';
      yield 'b\n\n';
      yield 'c\n\n';
      await sleep(20);
      yield 'd\n\n';
    }
    expect(await chunksOf(new CoalescedEventStream(frames()))).toEqual([
      'a\n\nb\n\nc\n\n',
      'd\n\n',
    ]);
  });

  it('delivers a frame before the producer has the next one', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    async function* frames() {
      yield 'first\n\n';
      await gate;
      yield 'second\n\n';
    }
    const stream = new CoalescedEventStream(frames());
    const first = await new Promise<string>((resolve) =>
      stream.once('data', (chunk) => resolve(String(chunk))),
    );
    expect(first).toBe('first\n\n');
    release();
    stream.resume();
  });

  it('returns the producer when destroyed, so its finally block runs', async () => {
    let finished = false;
    async function* frames() {
      try {
        yield 'a\n\n';
        await sleep(200);
        yield 'never\n\n';
      } finally {
        finished = true;
      }
    }
    const stream = new CoalescedEventStream(frames());
    await new Promise((resolve) => stream.once('data', resolve));
    stream.destroy();
    await new Promise((resolve) => stream.once('close', resolve));
    expect(finished).toBe(true);
  });

  it("ends with the producer's error", async () => {
    async function* frames() {
      yield 'a\n\n';
      await sleep(5);
      throw new Error('upstream broke');
    }
    await expect(chunksOf(new CoalescedEventStream(frames()))).rejects.toThrow('upstream broke');
  });

  it('stops pulling while the consumer is full and resumes when it reads', async () => {
    let produced = 0;
    async function* frames() {
      for (let index = 0; index < 200; index += 1) {
        produced += 1;
        yield `${'x'.repeat(1_000)}\n\n`;
        await sleep(0);
      }
    }
    const stream = new CoalescedEventStream(frames());
    stream.pause();
    stream.read(0);
    await sleep(100);
    // The default 16 KiB buffer fills after a few dozen frames; the producer waits.
    expect(produced).toBeLessThan(60);
    const chunks = await chunksOf(stream);
    expect(chunks.join('').length).toBe(200 * 1_002);
    expect(produced).toBe(200);
  });
});
