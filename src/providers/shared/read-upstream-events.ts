import { createParser } from 'eventsource-parser';
import type { UpstreamEvent } from '../provider-codec.ts';

/**
 * Turns an upstream SSE body into events as they arrive (eventsource-parser does the framing:
 * multi-line data, comments, CRLF, events split across chunks).
 */
export async function* readUpstreamEvents(
  body: AsyncIterable<Buffer | string>,
): AsyncGenerator<UpstreamEvent> {
  const pending: UpstreamEvent[] = [];
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
    while (pending.length > 0) yield pending.shift() as UpstreamEvent;
  }
  parser.feed(decoder.decode());
  while (pending.length > 0) yield pending.shift() as UpstreamEvent;
}
