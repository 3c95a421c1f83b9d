import { createHash } from 'node:crypto';
import type { FakeDialect, FakeUsage } from './fake-reply.ts';
import { promptPrefixBlocks } from './prompt-prefix-blocks.ts';
import type { PromptBlock } from './prompt-prefix-blocks.ts';

/**
 * A provider's prompt cache, one per upstream key, kept simple enough to reason about in a test:
 * a conversation that stays on one key reads its earlier prompt back from the cache, and one
 * that moves to another key pays for it again, because no key sees another key's entries.
 *
 * Anthropic (explicit caching): a request with a `cache_control` marker writes the prefix up to
 * each marked block (tools, then system, then messages, block by block) for 5 minutes, or an
 * hour with `ttl: "1h"`. It reads the longest cached prefix that ends at or before its last
 * marker, at any block boundary; the marker itself is not part of the prefix, so moving it
 * along a conversation keeps the earlier turns cached. Reported as the real API does:
 * `cache_read_input_tokens` for the read, `cache_creation_input_tokens` for the marked prefixes
 * beyond it, `input_tokens` for the rest. Without a marker nothing is read or written.
 *
 * OpenAI (automatic caching): every request writes each prefix of tools then whole messages
 * (chat) or instructions, tools and input items (Responses) for 5 minutes and reads the longest
 * one cached, reported as `cached_tokens`; the totals include it and no write is reported.
 *
 * Unlike the real services there is no minimum length, no 20-block lookback limit and no
 * rounding to 128 tokens; a prefix is also cached per model. Its size is the fake's token
 * estimate of its blocks' JSON (four bytes a token), and the whole prompt's is never less.
 * A read renews the entry's lifetime. Requests without a key share one cache.
 */
export interface FakePromptCache {
  /** Records what the request writes and returns its usage split; undefined: nothing cached. */
  usageFor(
    dialect: FakeDialect,
    key: string | undefined,
    body: Record<string, unknown>,
    promptTokens: number,
  ): FakeUsage | undefined;
  /** Forgets one key's entries, or every key's. */
  clear(key?: string): void;
}

interface CachedPrefix {
  expiresAt: number;
  lifetimeMs: number;
}

interface Prefix {
  /** Chained hash of the model and the blocks so far: equal ids, equal prefixes. */
  id: string;
  /** Estimate for the prefix as a whole. */
  tokens: number;
  marker: PromptBlock['marker'];
}

const lifetimes = { '5m': 5 * 60_000, '1h': 60 * 60_000 } as const;

function prefixesOf(model: unknown, blocks: PromptBlock[]): Prefix[] {
  let id = createHash('sha256')
    .update(JSON.stringify(model ?? null))
    .digest('hex');
  let bytes = 0;
  return blocks.map((block) => {
    id = createHash('sha256').update(id).update(block.json).digest('hex');
    bytes += Buffer.byteLength(block.json, 'utf8');
    return { id, tokens: Math.ceil(bytes / 4), marker: block.marker };
  });
}

export function createFakePromptCache(now: () => number): FakePromptCache {
  const caches = new Map<string, Map<string, CachedPrefix>>();

  function cacheOf(key: string | undefined): Map<string, CachedPrefix> {
    const name = key ?? '';
    let cache = caches.get(name);
    if (cache === undefined) {
      cache = new Map();
      caches.set(name, cache);
    }
    return cache;
  }

  /** Index of the longest live prefix among `candidates`, renewed; -1 when none is. */
  function readLongest(cache: Map<string, CachedPrefix>, candidates: Prefix[], at: number): number {
    for (let index = candidates.length - 1; index >= 0; index -= 1) {
      const id = candidates[index]?.id ?? '';
      const entry = cache.get(id);
      if (entry === undefined) continue;
      if (entry.expiresAt <= at) {
        cache.delete(id);
        continue;
      }
      entry.expiresAt = at + entry.lifetimeMs;
      return index;
    }
    return -1;
  }

  function write(cache: Map<string, CachedPrefix>, prefix: Prefix, lifetimeMs: number, at: number) {
    const kept = cache.get(prefix.id);
    const longest = Math.max(
      lifetimeMs,
      kept !== undefined && kept.expiresAt > at ? kept.lifetimeMs : 0,
    );
    cache.set(prefix.id, { expiresAt: at + longest, lifetimeMs: longest });
  }

  function anthropicUsage(
    cache: Map<string, CachedPrefix>,
    prefixes: Prefix[],
    totalTokens: number,
    at: number,
  ): FakeUsage | undefined {
    const lastMarked = prefixes.findLastIndex((prefix) => prefix.marker !== undefined);
    if (lastMarked < 0) return undefined;
    const hit = readLongest(cache, prefixes.slice(0, lastMarked + 1), at);
    const cacheRead = hit < 0 ? 0 : (prefixes[hit]?.tokens ?? 0);
    const written = { '5m': 0, '1h': 0 };
    let covered = cacheRead;
    for (const prefix of prefixes.slice(hit + 1, lastMarked + 1)) {
      if (prefix.marker === undefined) continue;
      written[prefix.marker] += prefix.tokens - covered;
      covered = prefix.tokens;
      write(cache, prefix, lifetimes[prefix.marker], at);
    }
    return {
      input: totalTokens - covered,
      cacheRead,
      cacheWrite5m: written['5m'],
      cacheWrite1h: written['1h'],
    };
  }

  function openAiUsage(
    cache: Map<string, CachedPrefix>,
    prefixes: Prefix[],
    totalTokens: number,
    at: number,
  ): FakeUsage | undefined {
    if (prefixes.length === 0) return undefined;
    const hit = readLongest(cache, prefixes, at);
    const cacheRead = hit < 0 ? 0 : (prefixes[hit]?.tokens ?? 0);
    for (const prefix of prefixes) write(cache, prefix, lifetimes['5m'], at);
    return { input: totalTokens - cacheRead, cacheRead, cacheWrite5m: 0, cacheWrite1h: 0 };
  }

  return {
    usageFor(dialect, key, body, promptTokens) {
      const prefixes = prefixesOf(body.model, promptPrefixBlocks(dialect, body));
      const totalTokens = Math.max(promptTokens, prefixes.at(-1)?.tokens ?? 0);
      const usage = dialect === 'anthropic' ? anthropicUsage : openAiUsage;
      return usage(cacheOf(key), prefixes, totalTokens, now());
    },
    clear(key) {
      if (key === undefined) caches.clear();
      else caches.delete(key);
    },
  };
}
