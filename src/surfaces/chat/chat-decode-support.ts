import type { CacheHint, TranslationIssue } from '../../canonical/generation-call.ts';

/** Small readers shared by the chat decoders; each reports what it cannot carry as an issue. */

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Names every field of `object` that no decoder reads (docs/architecture.md: nothing is dropped). A
 * `null` field is absent, as at OpenAI (the SDK's `parsed: null` among them).
 */
export function reportUnknownFields(
  object: JsonObject,
  known: ReadonlySet<string>,
  path: string,
  issues: TranslationIssue[],
): void {
  for (const [key, value] of Object.entries(object)) {
    if (!known.has(key) && value !== null) {
      issues.push({
        path: path === '' ? key : `${path}.${key}`,
        reason: `\`${key}\` has no equivalent on this route.`,
      });
    }
  }
}

/**
 * `cache_control: {type:"ephemeral", ttl?}` on a content part, the convention chat clients use
 * towards Anthropic models behind OpenAI-compatible gateways; it becomes a canonical cache hint.
 */
export function decodeChatCacheControl(
  value: unknown,
  path: string,
  issues: TranslationIssue[],
): CacheHint | undefined {
  if (value === undefined || value === null) return undefined;
  if (isJsonObject(value) && value['type'] === 'ephemeral') {
    const ttl = value['ttl'];
    const extra = Object.keys(value).filter((key) => key !== 'type' && key !== 'ttl');
    if (extra.length === 0 && (ttl === undefined || ttl === '5m' || ttl === '1h')) {
      return ttl === undefined ? {} : { ttl };
    }
  }
  issues.push({
    path,
    reason: 'Only `{"type":"ephemeral"}` with an optional `ttl` of "5m" or "1h" is supported.',
  });
  return undefined;
}
