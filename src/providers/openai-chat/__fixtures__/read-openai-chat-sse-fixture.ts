import type { UpstreamEvent } from '../../provider-codec.ts';
import {
  readJsonFixture,
  readSseFixture,
} from '../../shared/__fixtures__/read-recorded-fixture.ts';

/** The events of a recorded SSE body in this folder, parsed as the transport parses them. */
export function readOpenAIChatSseFixture(name: string): UpstreamEvent[] {
  return readSseFixture(new URL(name, import.meta.url));
}

export function readOpenAIChatJsonFixture(name: string): unknown {
  return readJsonFixture(new URL(name, import.meta.url));
}
