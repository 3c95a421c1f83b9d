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
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      yield pending;
      pending = [];
    }
  }
  parser.feed(decoder.decode());
  if (pending.length > 0) yield pending;
}
