import type { Principal } from '../../auth/authenticator.ts';
import type { CreditLedger } from '../../billing/credit-ledger.ts';
import { ledgerEntryId } from '../../billing/ledger-entry-id.ts';
import { microPerCredit } from '../../billing/micro-credits.ts';
import type { SettlementOutbox } from '../../billing/settlement-outbox.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { SearchConfig, SearchProviderConfig } from '../../config/search-config-schema.ts';
import type { LimitSet } from '../../config/config-schema.ts';
import type { RateLimiter, RateLimitLease } from '../../limits/rate-limiter.ts';
import type { UpstreamPools } from '../../providers/shared/upstream-pool.ts';
import { randomHex } from '../../shared/random-hex.ts';
import { braveAdapter } from './brave-adapter.ts';
import { callSearchProvider } from './call-search-provider.ts';
import { searxngAdapter } from './searxng-adapter.ts';
import type { SearchAdapter, SearchAnswer, SearchParameters } from './search-types.ts';
import { tavilyAdapter } from './tavily-adapter.ts';

const adapters: Record<SearchProviderConfig['kind'], SearchAdapter> = {
  tavily: tavilyAdapter,
  brave: braveAdapter,
  searxng: searxngAdapter,
};

export interface SearchDependencies {
  config: SearchConfig;
  pools: UpstreamPools;
  ledger: CreditLedger;
  settlements: SettlementOutbox;
  holdTtlMs: number;
  rateLimiter: RateLimiter;
  /** The request limits every paid route shares (configuration `limits`). */
  limits: { token?: LimitSet; account?: LimitSet };
  /** The configured key of a search provider, read from its environment variable. */
  apiKey(provider: SearchProviderConfig): string | undefined;
  now(): number;
}

export interface SearchInput {
  parameters: SearchParameters;
  principal: Principal;
  requestId: string;
}

/**
 * Web search (spec §2.7, §4.8; docs/search.md): the price is held, the providers are tried in
 * order until one answers (the next on 5xx, timeout or connect failure), and the hold is settled
 * on an answer or released on a failure, so a failed search costs nothing.
 */
export class SearchService {
  readonly #dependencies: SearchDependencies;
  readonly #price: number;

  constructor(dependencies: SearchDependencies) {
    this.#dependencies = dependencies;
    this.#price = Math.round(dependencies.config.pricePerRequest * microPerCredit);
  }

  async search(input: SearchInput): Promise<SearchAnswer> {
    const startedAt = this.#dependencies.now();
    const lease = await this.#admit(input.principal);
    try {
      const holdId = await this.#hold(input.principal);
      let answer: SearchAnswer;
      try {
        answer = await this.#ask(input);
      } catch (error) {
        if (holdId !== undefined) await this.#dependencies.ledger.releaseHold(holdId);
        throw error;
      }
      if (holdId !== undefined) await this.#settle(input, holdId, answer.provider, startedAt);
      return answer;
    } finally {
      if (lease !== undefined) {
        await this.#dependencies.rateLimiter.release(lease, {
          actualTokens: 0,
          now: this.#dependencies.now(),
        });
      }
    }
  }

  /**
   * The token's and the account's request limits apply to searches as to every paid route: a
   * search counts as a request and a concurrent call, and uses no tokens.
   */
  async #admit(principal: Principal): Promise<RateLimitLease | undefined> {
    const { limits, rateLimiter, now } = this.#dependencies;
    const scopes = [
      ...(limits.token ? [{ key: `token:${principal.apiKey.id}`, ...limits.token }] : []),
      ...(limits.account ? [{ key: `account:${principal.account.id}`, ...limits.account }] : []),
    ];
    if (scopes.length === 0) return undefined;
    const decision = await rateLimiter.acquire({ scopes, estimatedTokens: 0, now: now() });
    if (decision.ok) return decision.lease;
    const subject = decision.scopeKey.startsWith('token:') ? 'token' : 'account';
    throw new ApiError(
      'rate_limited',
      `Rate limit reached: ${decision.limit} per ${decision.limit === 'concurrency' ? 'moment' : 'minute'} for this ${subject}.`,
      { retryAfter: decision.retryAfterSeconds },
    );
  }

  async #ask(input: SearchInput): Promise<SearchAnswer> {
    const { config, pools, now } = this.#dependencies;
    let failure: ApiError | undefined;
    for (const provider of config.providers) {
      const outcome = await callSearchProvider({
        pools,
        provider,
        adapter: adapters[provider.kind],
        parameters: input.parameters,
        apiKey: this.#dependencies.apiKey(provider),
        now,
      });
      if (outcome.ok) {
        return {
          query: input.parameters.query,
          results: outcome.results,
          provider: provider.id,
          request_id: input.requestId,
          usage: { requests: 1, credits: this.#price / microPerCredit },
        };
      }
      failure = outcome.error;
      if (!outcome.next) break;
    }
    throw failure ?? new ApiError('internal', 'No search provider is configured.');
  }

  /** Reserves the price; 402 when the balance cannot cover it. A free search holds nothing. */
  async #hold(principal: Principal): Promise<string | undefined> {
    if (this.#price === 0) return undefined;
    const { ledger, now, holdTtlMs } = this.#dependencies;
    const holdId = `hold_${randomHex(16)}`;
    const placed = await ledger.placeHold({
      id: holdId,
      accountId: principal.account.id,
      amount: this.#price,
      expiresAt: now() + holdTtlMs,
    });
    if (!placed) {
      const balance = await ledger.getBalance(principal.account.id);
      throw new ApiError(
        'insufficient_credits',
        `The credits balance cannot cover this search: it costs ${(this.#price / microPerCredit).toFixed(6)} credits and ${(Math.max(0, balance.available) / microPerCredit).toFixed(6)} are available. Add credits.`,
      );
    }
    return holdId;
  }

  /** The charge and its usage record in one write, kept and retried when the store is down. */
  async #settle(
    input: SearchInput,
    holdId: string,
    provider: string,
    startedAt: number,
  ): Promise<void> {
    const createdAt = this.#dependencies.now();
    const { principal, requestId } = input;
    await this.#dependencies.settlements.submit({
      id: ledgerEntryId(createdAt),
      holdId,
      accountId: principal.account.id,
      cost: this.#price,
      reason: `search ${provider}`,
      requestId,
      createdAt,
      record: {
        requestId,
        accountId: principal.account.id,
        apiKeyId: principal.apiKey.id,
        surface: 'search',
        model: 'search',
        deployment: provider,
        inputTokens: 0,
        inputCacheReadTokens: 0,
        inputCacheWrite5mTokens: 0,
        inputCacheWrite1hTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
        latencyMs: createdAt - startedAt,
        outcome: 'ok',
        status: 200,
        createdAt,
      },
    });
  }
}
