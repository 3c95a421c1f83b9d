import type { UpstreamEvent } from '../../provider-codec.ts';
import {
  readJsonFixture,
  readSseFixture,
} from '../../shared/__fixtures__/read-recorded-fixture.ts';

/** The events of a recorded `streamGenerateContent?alt=sse` body in this folder. */
export function readGeminiSseFixture(name: string): UpstreamEvent[] {
  return readSseFixture(new URL(name, import.meta.url));
}

/** A recorded `generateContent` answer or error body in this folder. */
export function readGeminiJsonFixture(name: string): unknown {
  return readJsonFixture(new URL(name, import.meta.url));
}
