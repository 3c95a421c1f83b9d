import { describe, expect, it } from 'vitest';
import { readUpstreamEventBatches } from './read-upstream-events.ts';

async function* chunks(parts: Array<Buffer | string>): AsyncGenerator<Buffer | string> {
  for (const part of parts) yield part;
}

async function readAll(parts: Array<Buffer | string>): Promise<Array<Array<{ data: string }>>> {
  const batches = [];
  for await (const batch of readUpstreamEventBatches(chunks(parts))) batches.push(batch);
  return batches;
}

describe('readUpstreamEventBatches', () => {
  it('keeps a character whose bytes arrive in two reads whole', async () => {
    const bytes = Buffer.from('data: {"text":"née 🙂"}\n\n');
    const emoji = bytes.indexOf(Buffer.from('🙂'));
    const accent = bytes.indexOf(Buffer.from('é'));
    const batches = await readAll([
      bytes.subarray(0, accent + 1),
      bytes.subarray(accent + 1, emoji + 2),
      bytes.subarray(emoji + 2),
    ]);
    expect(batches).toEqual([[{ data: '{"text":"née 🙂"}' }]]);
  });

  it('gives every event one read completed as one batch, and names named events', async () => {
    const batches = await readAll(['event: a\ndata: 1\n\ndata: 2\n\nda', Buffer.from('ta: 3\n\n')]);
    expect(batches).toEqual([[{ event: 'a', data: '1' }, { data: '2' }], [{ data: '3' }]]);
  });

  it('decodes invalid bytes and a character cut short, across reads, as TextDecoder does', async () => {
    const invalid = Buffer.concat([
      Buffer.from('data: "a'),
      Buffer.from([0xff, 0xc3]),
      Buffer.from('b"\n\n'),
    ]);
    const cut = Buffer.concat([Buffer.from('data: "c'), Buffer.from('🙂').subarray(0, 2)]);
    const end = Buffer.from('\n\n');
    const batches = await readAll([
      invalid,
      cut.subarray(0, 9),
      Buffer.concat([cut.subarray(9), end]),
    ]);
    const expected = new TextDecoder().decode(Buffer.concat([invalid, cut, end]));
    expect(
      batches
        .flat()
        .map((event) => `data: ${event.data}\n\n`)
        .join(''),
    ).toBe(expected);
    expect(batches.flat()[0]?.data).toBe('"a\ufffd\ufffdb"');
  });
});
