import type { UpstreamEvent } from '../../provider-codec.ts';
import {
  readJsonFixture,
  readSseFixture,
} from '../../shared/__fixtures__/read-recorded-fixture.ts';

/** The events of a recorded SSE body in this folder, parsed as the transport parses them. */
export function readOpenAIResponsesSseFixture(name: string): UpstreamEvent[] {
  return readSseFixture(new URL(name, import.meta.url));
}

export function readOpenAIResponsesJsonFixture(name: string): Record<string, unknown> {
  return readJsonFixture<Record<string, unknown>>(new URL(name, import.meta.url));
}

/** The parsed `data` of the recorded events of one type. */
export function eventsOfType(events: UpstreamEvent[], type: string): Record<string, unknown>[] {
  return events
    .map((event) => JSON.parse(event.data) as Record<string, unknown>)
    .filter((data) => data.type === type);
}
