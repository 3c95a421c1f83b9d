import { readFileSync } from 'node:fs';
import { createParser } from 'eventsource-parser';
import type { UpstreamEvent } from '../../provider-codec.ts';

/**
 * The events of a recorded SSE body, parsed the way the upstream transport parses them: the
 * `event` name only when the recording has one. Each provider's `__fixtures__` reader passes
 * `new URL(name, import.meta.url)` so fixtures are named relative to that folder.
 */
export function readSseFixture(file: URL): UpstreamEvent[] {
  const events: UpstreamEvent[] = [];
  const parser = createParser({
    onEvent: (event) =>
      events.push(
        event.event === undefined ? { data: event.data } : { event: event.event, data: event.data },
      ),
  });
  parser.feed(readFileSync(file, 'utf8'));
  return events;
}

/** A recorded JSON body (a non-streaming answer). */
export function readJsonFixture<Body = unknown>(file: URL): Body {
  return JSON.parse(readFileSync(file, 'utf8')) as Body;
}
