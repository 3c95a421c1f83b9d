import { readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import type { UpstreamEvent } from '../../provider-codec.ts';

/** The events of a recorded SSE body, parsed the way the transport parses them. */
export function readOpenAIChatSseFixture(name: string): UpstreamEvent[] {
  const text = readFileSync(new URL(name, import.meta.url), 'utf8');
  const events: UpstreamEvent[] = [];
  const parser = createParser({
    onEvent: (event) =>
      events.push(
        event.event === undefined ? { data: event.data } : { event: event.event, data: event.data },
      ),
  });
  parser.feed(text);
  return events;
}

export function readOpenAIChatJsonFixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as unknown;
}
