import { readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import type { UpstreamEvent } from '../../provider-codec.ts';

/** The events of a recorded SSE body in this folder, parsed as the transport parses them. */
export function readOpenAIResponsesSseFixture(name: string): UpstreamEvent[] {
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

export function readOpenAIResponsesJsonFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
}

/** The parsed `data` of the recorded events of one type. */
export function eventsOfType(events: UpstreamEvent[], type: string): Record<string, unknown>[] {
  return events
    .map((event) => JSON.parse(event.data) as Record<string, unknown>)
    .filter((data) => data.type === type);
}
