import { toPriceTable, type PriceTable } from '../billing/price-table.ts';
import type {
  Config,
  ModelConfig,
  TextProviderConfig,
  TokenizerName,
} from '../config/config-schema.ts';
import type { ProviderTransport, UpstreamDialect } from '../providers/provider-transport.ts';
import { providerTransports } from '../providers/provider-transports.ts';
import type { SurfaceName } from '../surfaces/surface-codec.ts';
import { chooseTokenizer } from './choose-tokenizer.ts';
import { readUpstreamKeys, type UpstreamKey } from './upstream-key.ts';

export interface Deployment {
  providerId: string;
  provider: TextProviderConfig;
  upstreamModel: string;
  /** `provider/upstream-model`, as usage records name it. */
  label: string;
  /** How its provider is reached: paths, credentials, stream framing. */
  transport: ProviderTransport;
  /** The dialect it speaks to a client of each surface (provider-transport.ts). */
  dialects: Readonly<Record<SurfaceName, UpstreamDialect>>;
  /** The local tokenizer for the upstream model's prompts (OpenAI-style deployments only). */
  tokenizer?: TokenizerName;
  /** Lower is tried first (docs/routing.md). */
  priority: number;
  /** Share of the calls among the healthy deployments of its priority. */
  weight: number;
  /** One per upstream key of the provider, in the configuration's order. */
  targets: RoutingTarget[];
}

/** Where one attempt goes: a deployment and one of its provider's keys (docs/routing.md). */
export interface RoutingTarget {
  /** `provider/upstream-model#key-id`: the name of its health, in metrics and the admin API. */
  id: string;
  /** `provider#key-id`: the key's own health (a refused key is refused for every model). */
  keyScope: string;
  deployment: Deployment;
  key: UpstreamKey;
}

export interface CatalogModel {
  id: string;
  displayName: string;
  /** Epoch seconds. */
  created: number;
  ownedBy: string;
  capabilities: ModelConfig['capabilities'];
  contextWindow: number;
  maxOutputTokens: number;
  pricing: ModelConfig['pricing'];
  prices: PriceTable;
  deployments: Deployment[];
  ignoreFields: ReadonlySet<string>;
  routing: ModelConfig['routing'];
  /** Other public model ids tried after this one's targets (docs/routing.md). */
  fallbacks: readonly string[];
  /** Every deployment's targets, lowest priority first (configuration order within one). */
  targets: readonly RoutingTarget[];
}

export interface ModelPage {
  data: CatalogModel[];
  hasMore: boolean;
}

/** The configured models in configuration order, which is the stable order of every listing. */
export class ModelCatalog {
  #models: CatalogModel[];
  #byId: Map<string, CatalogModel>;

  /** `env` holds the providers' keys (read once here: a reload builds a new catalog). */
  constructor(config: Pick<Config, 'models' | 'providers'>, env: NodeJS.ProcessEnv = {}) {
    const keysByProvider = new Map<string, UpstreamKey[]>();
    const transports = new Map<string, ProviderTransport>();
    const transportOf = (providerId: string, provider: TextProviderConfig): ProviderTransport => {
      let transport = transports.get(providerId);
      if (transport === undefined) {
        transport = providerTransports[provider.kind](provider, env);
        transports.set(providerId, transport);
      }
      return transport;
    };
    const keysOf = (providerId: string, provider: TextProviderConfig): UpstreamKey[] => {
      let keys = keysByProvider.get(providerId);
      if (keys === undefined) {
        keys = readUpstreamKeys(provider.apiKeyEnv, env);
        keysByProvider.set(providerId, keys);
      }
      return keys;
    };
    this.#models = config.models.map((model) => {
      const deployments = model.deployments.map((deployment) => {
        // load-config.ts refuses a text model on a provider of another kind.
        const provider = config.providers[deployment.provider] as TextProviderConfig;
        const tokenizer = chooseTokenizer(provider, deployment.upstreamModel, deployment.tokenizer);
        const transport = transportOf(deployment.provider, provider);
        const { upstreamModel } = deployment;
        const built: Deployment = {
          providerId: deployment.provider,
          provider,
          upstreamModel,
          label: `${deployment.provider}/${upstreamModel}`,
          transport,
          dialects: {
            messages: transport.dialect(upstreamModel, 'anthropic'),
            chat: transport.dialect(upstreamModel, 'openai-chat'),
            responses: transport.dialect(upstreamModel, 'openai-responses'),
          },
          ...(tokenizer !== undefined ? { tokenizer } : {}),
          priority: deployment.priority,
          weight: deployment.weight,
          targets: [],
        };
        built.targets = keysOf(deployment.provider, provider).map((key) => ({
          id: `${built.label}#${key.id}`,
          keyScope: `${deployment.provider}#${key.id}`,
          deployment: built,
          key,
        }));
        return built;
      });
      const byPriority = [...deployments].sort((a, b) => a.priority - b.priority);
      return {
        id: model.id,
        displayName: model.displayName ?? model.id,
        created: model.created ?? 0,
        ownedBy: model.ownedBy ?? 'switchyard',
        capabilities: model.capabilities,
        contextWindow: model.contextWindow,
        maxOutputTokens: model.maxOutputTokens,
        pricing: model.pricing,
        prices: toPriceTable(model.pricing),
        deployments,
        ignoreFields: new Set(model.ignoreFields ?? []),
        routing: model.routing,
        fallbacks: model.fallbacks ?? [],
        targets: byPriority.flatMap((deployment) => deployment.targets),
      };
    });
    this.#byId = new Map(this.#models.map((model) => [model.id, model]));
  }

  /**
   * Takes `next`'s models in one step (a configuration reload): every holder of this catalog sees
   * them on its next lookup, while a request that already resolved a `CatalogModel` keeps that
   * object, deployments and prices included, until it ends.
   */
  replaceWith(next: ModelCatalog): void {
    this.#models = next.#models;
    this.#byId = next.#byId;
  }

  get(id: string): CatalogModel | undefined {
    return this.#byId.get(id);
  }

  all(): readonly CatalogModel[] {
    return this.#models;
  }

  /**
   * Cursor pagination of GET /v1/models: `afterId` starts after that model, `beforeId` ends before
   * it. An unknown cursor yields an empty page rather than restarting from the top.
   */
  page(options: {
    limit: number;
    afterId?: string;
    beforeId?: string;
    /** Only these model ids (a token's allowed models); every model when undefined. */
    only?: readonly string[];
  }): ModelPage {
    const only = options.only;
    const models =
      only === undefined ? this.#models : this.#models.filter((model) => only.includes(model.id));
    let start = 0;
    let end = models.length;
    if (options.afterId !== undefined) {
      const index = models.findIndex((model) => model.id === options.afterId);
      start = index === -1 ? end : index + 1;
    }
    if (options.beforeId !== undefined) {
      const index = models.findIndex((model) => model.id === options.beforeId);
      end = index === -1 ? start : index;
      // Paging backwards returns the models just before the cursor.
      if (options.afterId === undefined) start = Math.max(start, end - options.limit);
    }
    const slice = models.slice(start, Math.max(start, end));
    const data = slice.slice(0, options.limit);
    const hasMore =
      options.beforeId !== undefined && options.afterId === undefined
        ? start > 0
        : slice.length > data.length;
    return { data, hasMore };
  }
}
