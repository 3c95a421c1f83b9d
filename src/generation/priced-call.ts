import type { Principal } from '../auth/authenticator.ts';
import type { SettlementResult } from '../billing/credit-ledger.ts';
import { ledgerEntryId } from '../billing/ledger-entry-id.ts';
import { ApiError } from '../canonical/generation-error.ts';
import { rateLimitHeaders } from '../limits/rate-limit-headers.ts';
import type {
  RateLimitDecision,
  RateLimitLease,
  RateLimitScope,
  RateLimitStanding,
} from '../limits/rate-limiter.ts';
import { copyWith } from '../shared/copy-with.ts';
import { randomHex } from '../shared/random-hex.ts';
import type { BillingDependencies } from './billing-session.ts';
import { refuseHold } from './refuse-hold.ts';
import type { UsageRecord } from './usage-store.ts';

/**
 * The three money steps every paid route shares (docs/architecture.md), for calls priced by
 * something other than tokens (a search, an image, a second of audio): admission against the
 * token's and the account's request limits, a hold of the worst-case price with 402 when the
 * balance cannot cover it, and one settlement (charge and usage record together) through the
 * outbox. Text generation uses the same admission inside its billing session.
 */
export type PricedCallDependencies = Pick<
  BillingDependencies,
  'ledger' | 'settlements' | 'rateLimiter' | 'limits' | 'holdTtlMs' | 'now' | 'budgets'
>;

/**
 * Counts one request against the configured limits; 429 `rate_limited` with `retry-after` and the
 * `x-ratelimit-*` headers when a limit is reached. Undefined when no limit is configured. Release
 * the lease when the call ends.
 */
export async function admitRequest(
  dependencies: PricedCallDependencies,
  principal: Principal,
  estimatedTokens = 0,
): Promise<RateLimitLease | undefined> {
  return (await admitWithStanding(dependencies, principal, estimatedTokens))?.lease;
}

/** An admitted request: its lease and where the limits stand with it counted. */
export interface Admission {
  lease: RateLimitLease;
  standing: RateLimitStanding;
}

/**
 * As admitRequest, also telling where the limits stand with this request counted, for the
 * answer's `x-ratelimit-*` headers (docs/decisions/0149). Decided at once (no promise) where the
 * limiter can (`acquireAtOnce`), and then throws its 429 rather than rejecting.
 */
export function admitWithStanding(
  dependencies: PricedCallDependencies,
  principal: Principal,
  estimatedTokens: number,
): Admission | undefined | Promise<Admission> {
  const { limits, rateLimiter, now } = dependencies;
  // A token's own limits stand in for the configured ones, each kind it names (docs/operations.md).
  const tokenLimits =
    principal.apiKey.limits == null
      ? limits.token
      : copyWith(limits.token ?? {}, principal.apiKey.limits);
  // Built on every request: copyWith, not a literal with a spread (src/shared/copy-with.ts).
  const scopes: RateLimitScope[] = [];
  if (tokenLimits) scopes.push(copyWith({ key: `token:${principal.apiKey.id}` }, tokenLimits));
  if (limits.account)
    scopes.push(copyWith({ key: `account:${principal.account.id}` }, limits.account));
  if (scopes.length === 0) return undefined;
  const request = { scopes, estimatedTokens, now: now() };
  return rateLimiter.acquireAtOnce !== undefined
    ? admitted(rateLimiter.acquireAtOnce(request))
    : rateLimiter.acquire(request).then(admitted);
}

/** The admission itself, which holds the lease and the standing; a refusal is a 429. */
function admitted(decision: RateLimitDecision): Admission {
  if (decision.ok) return decision;
  const subject = decision.scopeKey.startsWith('token:') ? 'token' : 'account';
  throw new ApiError(
    'rate_limited',
    `Rate limit reached: ${decision.limit} per ${decision.limit === 'concurrency' ? 'moment' : 'minute'} for this ${subject}.`,
    { retryAfter: decision.retryAfterSeconds, headers: rateLimitHeaders(decision.standing) },
  );
}

/** Ends an admitted request's lease (a no-op without one). */
export async function releaseAdmission(
  dependencies: PricedCallDependencies,
  lease: RateLimitLease | undefined,
  actualTokens = 0,
): Promise<void> {
  if (lease === undefined) return;
  await dependencies.rateLimiter.release(lease, { actualTokens, now: dependencies.now() });
}

export interface PriceHold {
  principal: Principal;
  /** Micro-credits: the most the call may cost. */
  amount: number;
  /** What is paid for, as the 402 message names it: "this search", "this image generation". */
  what: string;
  /** The hold's own id (a job keeps it across restarts); a fresh one otherwise. */
  id?: string;
  /** How long the hold lives when nobody settles or releases it; the configured TTL otherwise. */
  ttlMs?: number;
}

/**
 * Reserves the worst-case price; when the available balance cannot cover it, 402
 * `insufficient_credits` naming both amounts, or `credits_reserved` with `retry-after` when only
 * the holds of requests in flight stand in the way (refuse-hold.ts). A free call holds nothing and
 * answers undefined.
 */
export async function holdPrice(
  dependencies: PricedCallDependencies,
  hold: PriceHold,
): Promise<string | undefined> {
  if (hold.amount === 0) return undefined;
  const { ledger, now, holdTtlMs, budgets } = dependencies;
  // docs/decisions/0166: a priced call is checked against the token's budget, not reserved in it.
  const checked = await budgets?.reserve(
    hold.principal.apiKey,
    (remaining) => (hold.amount <= remaining ? hold.amount : undefined),
    hold.amount,
  );
  await checked?.release();
  const id = hold.id ?? `hold_${randomHex(16)}`;
  const placed = await ledger.placeHold({
    id,
    accountId: hold.principal.account.id,
    amount: hold.amount,
    expiresAt: now() + (hold.ttlMs ?? holdTtlMs),
  });
  if (placed) return id;
  const balance = await ledger.getBalance(hold.principal.account.id);
  throw refuseHold(balance, hold.amount, hold.what, 'Add credits.');
}

export interface PricedSettlement {
  principal: Pick<Principal, 'account' | 'apiKey'>;
  /** The hold to close; undefined for a free call (nothing is written then). */
  holdId: string | undefined;
  /** Micro-credits the call costs. */
  cost: number;
  /** The ledger entry's reason, e.g. `search tavily`. */
  reason: string;
  requestId: string;
  surface: string;
  model: string;
  deployment: string | null;
  startedAt: number;
  /** Token counts where the upstream reported any; zero otherwise. */
  tokens?: Partial<
    Pick<UsageRecord, 'inputTokens' | 'outputTokens' | 'reasoningTokens' | 'inputCacheReadTokens'>
  >;
  /**
   * The settlement's id. Give a stable one (derived from a job id) when the same call might be
   * settled twice, so the second changes nothing; a time-ordered fresh id otherwise.
   */
  id?: string;
  status?: number;
}

/**
 * Charges a priced call and writes its usage record in one write, kept and retried by the
 * outbox when the store is down. Undefined when the call was free or the write was deferred.
 */
export async function settlePricedCall(
  dependencies: PricedCallDependencies,
  call: PricedSettlement,
): Promise<SettlementResult | undefined> {
  if (call.holdId === undefined) return undefined;
  const createdAt = dependencies.now();
  const { principal, requestId } = call;
  return dependencies.settlements.submit({
    id: call.id ?? ledgerEntryId(createdAt),
    holdId: call.holdId,
    accountId: principal.account.id,
    cost: call.cost,
    reason: call.reason,
    requestId,
    createdAt,
    record: {
      requestId,
      accountId: principal.account.id,
      apiKeyId: principal.apiKey.id,
      surface: call.surface,
      model: call.model,
      deployment: call.deployment,
      inputTokens: call.tokens?.inputTokens ?? 0,
      inputCacheReadTokens: call.tokens?.inputCacheReadTokens ?? 0,
      inputCacheWrite5mTokens: 0,
      inputCacheWrite1hTokens: 0,
      outputTokens: call.tokens?.outputTokens ?? 0,
      reasoningTokens: call.tokens?.reasoningTokens ?? 0,
      latencyMs: createdAt - call.startedAt,
      firstTokenMs: null,
      outcome: 'ok',
      status: call.status ?? 200,
      createdAt,
    },
  });
}
