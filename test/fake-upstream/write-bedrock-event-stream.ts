import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import type { StreamTiming } from './write-fake-reply.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One event-stream message as Bedrock frames its streamed answers. */
export interface BedrockFrame {
  headers: Record<string, string>;
  payload: string;
}

export function eventFrame(eventType: string, payload: unknown): BedrockFrame {
  return {
    headers: {
      ':message-type': 'event',
      ':event-type': eventType,
      ':content-type': 'application/json',
    },
    payload: JSON.stringify(payload),
  };
}

/** InvokeModelWithResponseStream: the model's own event, base64 in a `chunk`. */
export function chunkFrame(data: string): BedrockFrame {
  return eventFrame('chunk', { bytes: Buffer.from(data).toString('base64') });
}

export function exceptionFrame(exceptionType: string, message: string): BedrockFrame {
  return {
    headers: {
      ':message-type': 'exception',
      ':exception-type': exceptionType,
      ':content-type': 'application/json',
    },
    payload: JSON.stringify({ message }),
  };
}

export function encodeBedrockFrame(frame: BedrockFrame): Buffer {
  const headers: MessageHeaders = {};
  for (const [name, value] of Object.entries(frame.headers)) {
    headers[name] = { type: 'string', value };
  }
  return Buffer.from(codec.encode({ headers, body: fromUtf8(frame.payload) }));
}

/** Writes the frames as `application/vnd.amazon.eventstream`, honouring the reply's timing. */
export async function writeBedrockEventStream(
  response: ServerResponse,
  headers: Record<string, string>,
  frames: BedrockFrame[],
  timing: StreamTiming,
): Promise<void> {
  if ((timing.delayMs ?? 0) > 0) await sleep(timing.delayMs);
  if (response.destroyed || response.writableEnded) return;
  response.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', ...headers });
  response.flushHeaders();
  for (const [index, frame] of frames.entries()) {
    if (index === timing.cutAfterEvents) {
      timing.onCut?.();
      if (timing.cutMode === 'end') response.end();
      else response.destroy();
      return;
    }
    if (index > 0 && (timing.chunkDelayMs ?? 0) > 0) await sleep(timing.chunkDelayMs);
    if (response.destroyed) return;
    response.write(encodeBedrockFrame(frame));
  }
  response.end();
}
