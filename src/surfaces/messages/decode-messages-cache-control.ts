import type { CacheHint, TranslationIssue } from '../../canonical/generation-call.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

/** A `cache_control` value as a canonical cache hint (docs/api.md); null means none. */
export function decodeMessagesCacheControl(
  value: unknown,
  path: string,
  issues: TranslationIssue[],
): CacheHint | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value) || value.type !== 'ephemeral') {
    issues.push({ path: `${path}.type`, reason: 'only "ephemeral" cache control is supported' });
    return undefined;
  }
  for (const [key, field] of Object.entries(value)) {
    if (key !== 'type' && key !== 'ttl' && field !== null) {
      issues.push({ path: `${path}.${key}`, reason: 'this cache control field has no equivalent' });
    }
  }
  if (value.ttl === undefined || value.ttl === null) return {};
  if (value.ttl === '5m' || value.ttl === '1h') return { ttl: value.ttl };
  issues.push({ path: `${path}.ttl`, reason: 'cache TTL must be "5m" or "1h"' });
  return undefined;
}

/**
 * Reports every key of a block outside `known`. A null field is absent, and an empty `citations`
 * is accepted: clients replay response blocks verbatim and such a field carries nothing.
 */
export function reportUnknownMessagesKeys(
  block: Record<string, unknown>,
  known: readonly string[],
  path: string,
  issues: TranslationIssue[],
): void {
  for (const [key, value] of Object.entries(block)) {
    if (known.includes(key) || value === null) continue;
    if (key === 'citations' && Array.isArray(value) && value.length === 0) {
      continue;
    }
    issues.push({
      path: `${path}.${key}`,
      reason: `"${key}" has no equivalent outside the message-style dialect`,
    });
  }
}
