import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  assertAcquireRateLimitRequest,
  assertReleaseRateLimitOptions,
} from '../../limits/assert-rate-limit-request.ts';
import { HeldLeaseHeartbeat } from '../../limits/held-lease-heartbeat.ts';
import { chargedWindow, standingOf, type CountedWindow } from '../../limits/rate-limit-standing.ts';
import { RATE_LIMIT_WINDOW_SECONDS, windowSecondOf } from '../../limits/rate-limit-window.ts';
import {
  type AcquireRateLimitRequest,
  type RateLimitDecision,
  type RateLimitKind,
  type RateLimitLease,
  type RateLimiter,
  type RateLimiterOptions,
  type ReleaseRateLimitOptions,
} from '../../limits/rate-limiter.ts';
import {
  ACQUIRE_RATE_LIMIT_SCRIPT,
  RELEASE_RATE_LIMIT_SCRIPT,
  RENEW_RATE_LIMIT_LEASES_SCRIPT,
} from './redis-rate-limiter-scripts.ts';
import { defineRedisScript, runRedisScript } from './run-redis-script.ts';

const acquireScript = defineRedisScript(ACQUIRE_RATE_LIMIT_SCRIPT);
const releaseScript = defineRedisScript(RELEASE_RATE_LIMIT_SCRIPT);
const renewScript = defineRedisScript(RENEW_RATE_LIMIT_LEASES_SCRIPT);

/**
 * Key expiry is housekeeping on the Redis clock, so it leaves a minute of slack for gateway
 * clocks that run behind Redis: no key may vanish while some caller's `now` still counts it.
 */
const EXPIRY_SLACK_MS = 60_000;
const WINDOW_KEY_TTL_MS = RATE_LIMIT_WINDOW_SECONDS * 1000 + EXPIRY_SLACK_MS;

/** The acquire script's per-scope counts: requests total and newest second, then tokens'. */
function readCounts(
  scopeCount: number,
  flat: readonly number[],
): Array<{ requests: CountedWindow; tokens: CountedWindow }> {
  if (flat.length !== scopeCount * 4) {
    throw new Error(`Unexpected counts from the acquire script: ${JSON.stringify(flat)}`);
  }
  const window = (total: number, newest: number): CountedWindow => ({
    total,
    newestSecond: newest < 0 ? undefined : newest,
  });
  return Array.from({ length: scopeCount }, (_, scope) => ({
    requests: window(flat[scope * 4] as number, flat[scope * 4 + 1] as number),
    tokens: window(flat[scope * 4 + 2] as number, flat[scope * 4 + 3] as number),
  }));
}

const REFUSAL_KINDS: Record<number, RateLimitKind> = {
  1: 'requests',
  2: 'tokens',
  3: 'concurrency',
};

/**
 * The scale-out limiter (docs/architecture.md): every gateway process shares the counters in one
 * Redis, so limits hold across processes, not per process. One script call per acquire and per
 * release, and one per heartbeat for all the leases this process holds: a lease lives `leaseTtlMs`
 * past its holder's last heartbeat, so a crashed process's slots come back within seconds
 * (docs/decisions/0020). All keys live under `keyPrefix`; the scripts touch several keys at once,
 * so on Redis Cluster the prefix would have to be a hash tag (`{switchyard}:limits`), putting every
 * limit on one shard.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #client: Redis;
  readonly #keyPrefix: string;
  readonly #leaseTtlMs: number;
  readonly #heartbeat: HeldLeaseHeartbeat;

  /** `client` stays the caller's: this class never closes it. */
  constructor(client: Redis, keyPrefix: string, options: RateLimiterOptions = {}) {
    this.#client = client;
    this.#keyPrefix = keyPrefix;
    this.#heartbeat = new HeldLeaseHeartbeat(options, (leases, expiresAt, now) =>
      this.#renew(leases, expiresAt, now),
    );
    this.#leaseTtlMs = this.#heartbeat.leaseTtlMs;
  }

  async acquire(request: AcquireRateLimitRequest): Promise<RateLimitDecision> {
    assertAcquireRateLimitRequest(request);
    const { scopes, estimatedTokens, now } = request;
    const lease: RateLimitLease = {
      id: randomUUID(),
      scopes: scopes.map((scope) => ({ ...scope })),
      estimatedTokens,
      acquiredAt: now,
      expiresAt: now + this.#leaseTtlMs,
    };
    const keys = [this.#leaseKey(lease.id)];
    const args: Array<string | number> = [
      now,
      lease.id,
      lease.expiresAt,
      estimatedTokens,
      WINDOW_KEY_TTL_MS,
      this.#leaseTtlMs + EXPIRY_SLACK_MS,
    ];
    for (const scope of lease.scopes) {
      keys.push(
        this.#scopeKey('requests', scope.key),
        this.#scopeKey('tokens', scope.key),
        this.#scopeKey('leases', scope.key),
      );
      args.push(
        scope.requestsPerMinute ?? 0,
        scope.tokensPerMinute ?? 0,
        scope.concurrentRequests ?? 0,
      );
    }

    const reply = await runRedisScript(this.#client, acquireScript, keys, args);
    if (!Array.isArray(reply)) throw new Error('Unexpected reply from the acquire script.');
    if (reply[0] === 1) {
      this.#heartbeat.hold(lease);
      const counted = readCounts(lease.scopes.length, reply.slice(1) as number[]);
      // The script read the windows before charging them; the standing counts this request.
      const second = windowSecondOf(now);
      const charged = counted.map((windows) => ({
        requests: chargedWindow(windows.requests, 1, second),
        tokens: chargedWindow(windows.tokens, estimatedTokens, second),
      }));
      return { ok: true, lease, standing: standingOf(lease.scopes, charged, now) };
    }
    const [, kind, scopeIndex, retryAfterSeconds] = reply as number[];
    const limit = REFUSAL_KINDS[kind ?? 0];
    const scope = lease.scopes[scopeIndex ?? -1];
    if (limit === undefined || scope === undefined || retryAfterSeconds === undefined) {
      throw new Error(`Unexpected refusal from the acquire script: ${JSON.stringify(reply)}`);
    }
    const counted = readCounts(lease.scopes.length, reply.slice(4) as number[]);
    return {
      ok: false,
      retryAfterSeconds,
      limit,
      scopeKey: scope.key,
      standing: standingOf(lease.scopes, counted, now),
    };
  }

  async release(lease: RateLimitLease, options: ReleaseRateLimitOptions): Promise<boolean> {
    assertReleaseRateLimitOptions(options);
    this.#heartbeat.drop(lease.id);
    const keys = [this.#leaseKey(lease.id)];
    const args: Array<string | number> = [
      options.now,
      lease.id,
      lease.acquiredAt,
      lease.estimatedTokens,
      options.actualTokens,
      WINDOW_KEY_TTL_MS,
    ];
    for (const scope of lease.scopes) {
      keys.push(this.#scopeKey('tokens', scope.key), this.#scopeKey('leases', scope.key));
      args.push(
        scope.tokensPerMinute === undefined ? 0 : 1,
        scope.concurrentRequests === undefined ? 0 : 1,
      );
    }
    const reply = await runRedisScript(this.#client, releaseScript, keys, args);
    return reply === 1;
  }

  close(): void {
    this.#heartbeat.close();
  }

  async #renew(leases: RateLimitLease[], expiresAt: number, now: number): Promise<string[]> {
    const keys: string[] = [];
    const args: Array<string | number> = [now, expiresAt, this.#leaseTtlMs + EXPIRY_SLACK_MS];
    for (const lease of leases) {
      const sets = lease.scopes.filter((scope) => scope.concurrentRequests !== undefined);
      keys.push(
        this.#leaseKey(lease.id),
        ...sets.map((scope) => this.#scopeKey('leases', scope.key)),
      );
      args.push(lease.id, sets.length);
    }
    const reply = await runRedisScript(this.#client, renewScript, keys, args);
    if (!Array.isArray(reply)) throw new Error('Unexpected reply from the renew script.');
    return leases.filter((_, index) => reply[index] === 1).map((lease) => lease.id);
  }

  #scopeKey(kind: 'requests' | 'tokens' | 'leases', scopeKey: string): string {
    return `${this.#keyPrefix}:${kind}:${scopeKey}`;
  }

  #leaseKey(leaseId: string): string {
    return `${this.#keyPrefix}:lease:${leaseId}`;
  }
}
