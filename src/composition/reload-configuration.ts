import { isDeepStrictEqual } from 'node:util';
import { ModelCatalog } from '../catalog/model-catalog.ts';
import type { Config, ProviderConfig } from '../config/config-schema.ts';
import { keyVariables } from '../catalog/upstream-key.ts';
import { parseConfig, readProviderKey } from '../config/load-config.ts';
import type { GatewayParts } from '../features/gateway-parts.ts';
import type { ProviderKeys } from './provider-keys.ts';

/** What a section's entries did between two configurations, by id. */
export interface IdChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

export interface ReloadChanges {
  models: IdChanges;
  /** The text providers (generation); the other kinds belong to their features' sections. */
  providers: IdChanges;
  /** The reloadable top-level sections that changed. */
  sections: string[];
}

export type ReloadOutcome =
  | {
      ok: true;
      changed: ReloadChanges;
      /** Keys that changed in the file but keep their running value until a restart. */
      restartNeeded: string[];
      /** Providers now in use whose key variable is unset or empty (names, never values). */
      unsetKeys: Array<{ provider: string; apiKeyEnv: string }>;
    }
  | { ok: false; reason: string };

/**
 * The sections a reload swaps: the text models with their deployments and prices, the providers
 * they are deployed on (with their keys) and the routing between them. Everything else is read
 * once, when the gateway is composed (listening socket, store, admin credential, the features'
 * own sections), so a change there waits for a restart.
 */
const reloadableSections: ReadonlySet<string> = new Set(['models', 'providers', 'routing']);

/**
 * Reads the configuration again and swaps its reloadable parts in one synchronous step: the
 * catalog's models, the provider keys, the upstream pools and `parts.config`. A request that
 * resolved its model before keeps the old `CatalogModel` (deployments, prices) to its end. A file
 * that does not load or validate changes nothing; a change to a section that needs a restart is
 * named and left as it runs.
 */
export function reloadConfiguration(options: {
  parts: GatewayParts;
  providerKeys: ProviderKeys;
  /** Reads and validates the file as start-up did (`loadConfig`); throws ConfigError. */
  readConfig: () => Config;
}): ReloadOutcome {
  const { parts, providerKeys } = options;
  const running = parts.config;
  let next: Config;
  try {
    next = options.readConfig();
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }

  const restartNeeded = sectionsNeedingRestart(running, next);
  const effective = mergeReloadable(running, next);
  try {
    // The swapped parts against the kept ones: a judge model or a provider kind a kept section
    // relies on must still be there.
    parseConfig(structuredClone(effective));
  } catch (error) {
    const kept =
      restartNeeded.length > 0
        ? ` (checked with the running values of ${restartNeeded.join(', ')}, which need a restart)`
        : '';
    return { ok: false, reason: `${reasonOf(error)}${kept}` };
  }
  let catalog: ModelCatalog;
  try {
    catalog = new ModelCatalog(effective, parts.env);
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }

  const changed: ReloadChanges = {
    models: idChanges(byId(running.models), byId(effective.models)),
    providers: idChanges(textProviders(running), textProviders(effective)),
    sections: [...reloadableSections].filter(
      (section) => !isDeepStrictEqual(sectionOf(running, section), sectionOf(effective, section)),
    ),
  };
  const unsetKeys = [...changed.providers.added, ...changed.providers.changed].flatMap((id) =>
    keyVariables(effective.providers[id]?.apiKeyEnv)
      .filter((apiKeyEnv) => readProviderKey(apiKeyEnv, parts.env) === undefined)
      .map((apiKeyEnv) => ({ provider: id, apiKeyEnv })),
  );

  // One synchronous step: no request sees half of it.
  parts.catalog.replaceWith(catalog);
  providerKeys.replaceWith(effective, parts.env);
  parts.pools.carryOver(running.providers, effective.providers);
  parts.router.configure(effective.routing);
  parts.config = effective;
  return { ok: true, changed, restartNeeded, unsetKeys };
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function sectionOf(config: Config, section: string): unknown {
  if (section === 'providers') return textProviders(config);
  return (config as Record<string, unknown>)[section];
}

/**
 * The running configuration with `next`'s reloadable sections. Providers of a kind no text model
 * uses (transcription) belong to their feature, which holds them from start-up: those keep their
 * running objects.
 */
function mergeReloadable(running: Config, next: Config): Config {
  const merged: Record<string, unknown> = { ...running };
  for (const section of reloadableSections) {
    if (section === 'providers') continue;
    const value = (next as Record<string, unknown>)[section];
    if (value === undefined) delete merged[section];
    else merged[section] = value;
  }
  merged.providers = { ...textProviders(next), ...otherProviders(running) };
  return merged as Config;
}

/** The keys whose change needs a restart, as `section` or `section.key` for an object section. */
function sectionsNeedingRestart(running: Config, next: Config): string[] {
  const names: string[] = [];
  const sections = new Set([...Object.keys(running), ...Object.keys(next)]);
  for (const section of sections) {
    if (reloadableSections.has(section)) continue;
    const before = (running as Record<string, unknown>)[section];
    const after = (next as Record<string, unknown>)[section];
    if (isDeepStrictEqual(before, after)) continue;
    if (isPlainObject(before) && isPlainObject(after)) {
      for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
        if (!isDeepStrictEqual(before[key], after[key])) names.push(`${section}.${key}`);
      }
    } else {
      names.push(section);
    }
  }
  const before = otherProviders(running);
  const after = otherProviders(next);
  for (const id of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (!isDeepStrictEqual(before[id], after[id])) names.push(`providers.${id}`);
  }
  return names;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isTextProvider(provider: ProviderConfig): boolean {
  return provider.kind !== 'openai-transcription';
}

function textProviders(config: Config): Record<string, ProviderConfig> {
  return Object.fromEntries(
    Object.entries(config.providers).filter(([, provider]) => isTextProvider(provider)),
  );
}

function otherProviders(config: Config): Record<string, ProviderConfig> {
  return Object.fromEntries(
    Object.entries(config.providers).filter(([, provider]) => !isTextProvider(provider)),
  );
}

function byId<T extends { id: string }>(items: readonly T[]): Record<string, T> {
  return Object.fromEntries(items.map((item) => [item.id, item]));
}

function idChanges(before: Record<string, unknown>, after: Record<string, unknown>): IdChanges {
  return {
    added: Object.keys(after).filter((id) => !Object.hasOwn(before, id)),
    removed: Object.keys(before).filter((id) => !Object.hasOwn(after, id)),
    changed: Object.keys(after).filter(
      (id) => Object.hasOwn(before, id) && !isDeepStrictEqual(before[id], after[id]),
    ),
  };
}
