import { readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import type { UpstreamEvent } from '../../provider-codec.ts';

/** The events of a recorded SSE body in this folder, parsed as the transport parses them. */
export function readAnthropicSseFixture(name: string): UpstreamEvent[] {
  const events: UpstreamEvent[] = [];
  const parser = createParser({
    onEvent: (event) =>
      events.push({
        ...(event.event !== undefined ? { event: event.event } : {}),
        data: event.data,
      }),
  });
  parser.feed(readFileSync(new URL(name, import.meta.url), 'utf8'));
  return events;
}

export function readAnthropicJsonFixture(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as unknown;
}
