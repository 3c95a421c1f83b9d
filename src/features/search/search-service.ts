import type { Principal } from '../../auth/authenticator.ts';
import { microPerCredit } from '../../billing/micro-credits.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { SearchConfig, SearchProviderConfig } from '../../config/search-config-schema.ts';
import {
  admitRequest,
  holdPrice,
  releaseAdmission,
  settlePricedCall,
  type PricedCallDependencies,
} from '../../generation/priced-call.ts';
import type { UpstreamPools } from '../../providers/shared/upstream-pool.ts';
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

export interface SearchDependencies extends PricedCallDependencies {
  config: SearchConfig;
  pools: UpstreamPools;
  /** The configured key of a search provider, read from its environment variable. */
  apiKey(provider: SearchProviderConfig): string | undefined;
}

export interface SearchInput {
  parameters: SearchParameters;
  principal: Principal;
  requestId: string;
}

/**
 * Web search (docs/search.md): the price is held, the providers are tried in
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
    const dependencies = this.#dependencies;
    const startedAt = dependencies.now();
    const { principal } = input;
    // The token's and the account's request limits apply as on every paid route: a search counts
    // as a request and a concurrent call, and uses no tokens.
    const lease = await admitRequest(dependencies, principal);
    try {
      const holdId = await holdPrice(dependencies, {
        principal,
        amount: this.#price,
        what: 'this search',
      });
      let answer: SearchAnswer;
      try {
        answer = await this.#ask(input);
      } catch (error) {
        if (holdId !== undefined) await dependencies.ledger.releaseHold(holdId);
        throw error;
      }
      await settlePricedCall(dependencies, {
        principal,
        holdId,
        cost: this.#price,
        reason: `search ${answer.provider}`,
        requestId: input.requestId,
        surface: 'search',
        model: 'search',
        deployment: answer.provider,
        startedAt,
      });
      return answer;
    } finally {
      await releaseAdmission(dependencies, lease);
    }
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
}
