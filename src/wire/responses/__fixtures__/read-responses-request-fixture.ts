import { readFileSync } from 'node:fs';

/** A recorded client body in this folder; a fresh copy on every call, so tests may change it. */
export function readResponsesRequestFixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(name, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
}
