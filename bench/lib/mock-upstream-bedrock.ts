import { EventStreamCodec, type MessageHeaders } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { MESSAGES_SSE } from './mock-upstream-bodies.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function chunkFrame(data: string): Buffer {
  const headers: MessageHeaders = {
    ':message-type': { type: 'string', value: 'event' },
    ':event-type': { type: 'string', value: 'chunk' },
    ':content-type': { type: 'string', value: 'application/json' },
  };
  const payload = JSON.stringify({ bytes: Buffer.from(data).toString('base64') });
  return Buffer.from(codec.encode({ headers, body: fromUtf8(payload) }));
}

/**
 * The Anthropic stream of the mock (MESSAGES_SSE) as Bedrock's InvokeModelWithResponseStream
 * sends it: each event's JSON base64 in a `chunk` of an AWS event stream, one frame per event.
 */
export const BEDROCK_INVOKE_STREAM: Buffer[] = MESSAGES_SSE.map((event) => {
  const data = /^data: (.*)$/m.exec(event)?.[1];
  if (data === undefined) throw new Error(`no data line in ${event}`);
  return chunkFrame(data);
});

/** Bedrock's InvokeModel routes: `/model/{modelId}/invoke` and `/invoke-with-response-stream`. */
export const BEDROCK_INVOKE_PATH = /^\/model\/[^/]+\/invoke(-with-response-stream)?$/;
