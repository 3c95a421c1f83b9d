import type { TranslationIssue } from '../../canonical/generation-call.ts';

/** Small readers for an already schema-checked body, so the decoder never trusts a cast. */

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `null` is how many clients say "not set"; the decoder treats it as absent. */
export function isAbsent(value: unknown): value is null | undefined {
  return value === undefined || value === null;
}

/**
 * Reports every field of `object` outside `known` (docs/api.md: nothing is dropped silently).
 * Nested objects list the fields the route maps or knows to be meaningless, see the translation
 * table. A `null` field is absent (docs/translation.md), such as the `parsed_arguments: null` and
 * `parsed: null` the openai SDK's stream helpers add to the items they return.
 */
export function reportUnknownFields(
  object: Record<string, unknown>,
  known: ReadonlySet<string>,
  path: string,
  issues: TranslationIssue[],
): void {
  for (const [key, value] of Object.entries(object)) {
    if (!known.has(key) && value !== null) {
      issues.push({
        path: `${path}.${key}`,
        reason: 'This field has no equivalent on this route.',
      });
    }
  }
}
