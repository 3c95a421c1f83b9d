import { StringDecoder } from 'node:string_decoder';
import { createParser } from 'eventsource-parser';
import type { UpstreamEvent } from '../provider-codec.ts';

/**
 * Turns an upstream SSE body into events as they arrive (eventsource-parser does the framing:
 * multi-line data, comments, CRLF, events split across chunks). The events come in batches, all
 * that one read of the body completed, so a consumer awaits once per read rather than once per
 * event; a batch is never empty.
 */
export async function* readUpstreamEventBatches(
  body: AsyncIterable<Buffer | string>,
): AsyncGenerator<UpstreamEvent[]> {
  let pending: UpstreamEvent[] = [];
  const parser = createParser({
    onEvent(event) {
      pending.push(
        event.event === undefined ? { data: event.data } : { event: event.event, data: event.data },
      );
    },
  });
  // StringDecoder keeps a character split across reads for the next one, as TextDecoder's stream
  // mode does, at a tenth of its cost: TextDecoder goes through ICU and a two-byte copy
  // (docs/performance.md).
  const decoder = new StringDecoder('utf8');
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    if (pending.length > 0) {
      yield pending;
      pending = [];
    }
  }
  parser.feed(decoder.end());
  if (pending.length > 0) yield pending;
}
