import { describe, expect, it } from 'vitest';
import type { UpstreamEvent } from '../provider-codec.ts';
import {
  encodeBedrockMessage,
  encodeBedrockException,
  encodeInvokeChunk,
  readBedrockJsonFixture,
  readInPieces,
} from './__fixtures__/read-bedrock-fixture.ts';
import { readBedrockEventBatches } from './read-bedrock-event-stream.ts';

async function readAll(bytes: Buffer, pieceSize: number): Promise<UpstreamEvent[][]> {
  const batches: UpstreamEvent[][] = [];
  for await (const batch of readBedrockEventBatches(readInPieces(bytes, pieceSize))) {
    batches.push(batch);
  }
  return batches;
}

const events = readBedrockJsonFixture<Array<{ type: string }>>('invoke-stream-text-cached.json');

describe('readBedrockEventBatches', () => {
  it('turns invoke chunks into the Anthropic events they carry, byte for byte', async () => {
    const bytes = Buffer.concat(events.map(encodeInvokeChunk));
    // Pieces of 5 bytes split frames, and the ✓ of a delta, across reads.
    for (const size of [5, 64, bytes.length]) {
      const read = (await readAll(bytes, size)).flat();
      expect(read).toEqual(
        events.map((event) => ({ event: event.type, data: JSON.stringify(event) })),
      );
    }
    // One read of the whole body is one batch.
    expect(await readAll(bytes, bytes.length)).toHaveLength(1);
  });

  it('turns an exception into an error event in the message-style shape', async () => {
    const bytes = Buffer.concat([
      encodeInvokeChunk(events[0]),
      encodeBedrockException('modelStreamErrorException', 'The model stopped.'),
    ]);
    const read = (await readAll(bytes, 11)).flat();
    expect(read[1]).toEqual({
      event: 'error',
      data: JSON.stringify({
        type: 'error',
        error: { type: 'api_error', message: 'modelStreamErrorException: The model stopped.' },
      }),
    });
  });

  it('turns an error message (error code and message in headers) into an error event', async () => {
    const bytes = encodeBedrockMessage(
      {
        ':message-type': 'error',
        ':error-code': 'InternalFailure',
        ':error-message': 'An internal error occurred.',
      },
      '',
    );
    const [event] = (await readAll(bytes, 7)).flat();
    expect(event?.event).toBe('error');
    expect(JSON.parse(event?.data ?? '{}').error).toEqual({
      type: 'api_error',
      message: 'InternalFailure: An internal error occurred.',
    });
  });

  it('throws on a corrupt message and on a body that ends inside one', async () => {
    const frame = encodeInvokeChunk(events[0]);
    const corrupt = Buffer.from(frame);
    corrupt[frame.length - 10] = (corrupt[frame.length - 10] ?? 0) ^ 0xff;
    await expect(readAll(corrupt, 100)).rejects.toThrow();
    await expect(readAll(frame.subarray(0, frame.length - 3), 100)).rejects.toThrow(
      /ended inside a message/,
    );
  });
});
