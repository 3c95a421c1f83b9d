import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { readJsonFixture } from '../../shared/__fixtures__/read-recorded-fixture.ts';

export function readBedrockJsonFixture<Body = unknown>(name: string): Body {
  return readJsonFixture<Body>(new URL(name, import.meta.url));
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

const text = (value: string) => ({ type: 'string' as const, value });

/** One event-stream message as Bedrock frames it. */
export function encodeBedrockMessage(headers: Record<string, string>, payload: string): Buffer {
  const tagged: MessageHeaders = {};
  for (const [name, value] of Object.entries(headers)) tagged[name] = text(value);
  return Buffer.from(codec.encode({ headers: tagged, body: fromUtf8(payload) }));
}

/** A ConverseStream event (`:event-type` names it, the payload is its JSON). */
export function encodeConverseEvent(eventType: string, payload: unknown): Buffer {
  return encodeBedrockMessage(
    { ':message-type': 'event', ':event-type': eventType, ':content-type': 'application/json' },
    JSON.stringify(payload),
  );
}

/** An InvokeModelWithResponseStream `chunk`: the model's event, base64 in `bytes`. */
export function encodeInvokeChunk(event: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(event)).toString('base64');
  return encodeConverseEvent('chunk', { bytes, p: 'abcdefghijklmnopqrstuvwxyzABCDEFGH' });
}

export function encodeBedrockException(exceptionType: string, message: string): Buffer {
  return encodeBedrockMessage(
    {
      ':message-type': 'exception',
      ':exception-type': exceptionType,
      ':content-type': 'application/json',
    },
    JSON.stringify({ message }),
  );
}

/** The bytes cut into pieces of `size`, as reads of a body may arrive. */
export async function* readInPieces(bytes: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += size) {
    yield bytes.subarray(offset, offset + size);
  }
}
