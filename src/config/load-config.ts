import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { ConfigSchema, ProviderConfigSchema, type Config } from './config-schema.ts';
import { checkImagesConfig } from './check-images-config.ts';
import { checkSearchConfig } from './check-search-config.ts';
import { checkTranscriptionConfig } from './check-transcription-config.ts';
import { checkCloudProvider, defaultApiKeyEnv, defaultBaseUrl } from './cloud-provider-settings.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const compiledConfigSchema = Compile(ConfigSchema);

/** Turns a JSON pointer (`/models/0/pricing/input`) into the key path an operator reads. */
function keyPath(instancePath: string, missing?: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (missing !== undefined) segments.push(missing);
  let result = '';
  for (const segment of segments) {
    result += /^\d+$/.test(segment) ? `[${segment}]` : result === '' ? segment : `.${segment}`;
  }
  return result === '' ? '(root)' : result;
}

/**
 * Validates a raw configuration object and fills defaults. Every problem names its key, so a
 * bad configuration stops start-up with a message an operator can act on.
 */
export function parseConfig(raw: unknown): Config {
  const withDefaults = Value.Default(ConfigSchema, Value.Clone(raw ?? {})) as Record<
    string,
    unknown
  >;
  // Defaults are not filled inside record values; providers are keyed by name.
  const providers = withDefaults.providers;
  if (typeof providers === 'object' && providers !== null) {
    for (const [name, provider] of Object.entries(providers)) {
      const filled = Value.Default(ProviderConfigSchema, provider) as Record<string, unknown>;
      // A cloud kind's endpoint follows from its region (cloud-provider-settings.ts).
      if (typeof filled === 'object' && filled !== null && filled.baseUrl === undefined) {
        const baseUrl = defaultBaseUrl(filled);
        if (baseUrl !== undefined) filled.baseUrl = baseUrl;
      }
      if (typeof filled === 'object' && filled !== null && filled.apiKeyEnv === undefined) {
        const apiKeyEnv = defaultApiKeyEnv(filled);
        if (apiKeyEnv !== undefined) filled.apiKeyEnv = apiKeyEnv;
      }
      (providers as Record<string, unknown>)[name] = filled;
    }
  }
  if (!compiledConfigSchema.Check(withDefaults)) {
    const problems = [...compiledConfigSchema.Errors(withDefaults)]
      .filter((error) => error.keyword !== 'boolean')
      .map((error) => {
        const params = error.params as Record<string, unknown>;
        if (error.keyword === 'required' && Array.isArray(params.requiredProperties)) {
          return `${keyPath(error.instancePath, String(params.requiredProperties[0]))}: is required`;
        }
        if (
          error.keyword === 'additionalProperties' &&
          Array.isArray(params.additionalProperties)
        ) {
          return `${keyPath(error.instancePath, String(params.additionalProperties[0]))}: unknown key`;
        }
        return `${keyPath(error.instancePath)}: ${error.message}`;
      });
    throw new ConfigError(
      `Invalid configuration:\n  ${[...new Set(problems.map(nameMissingRegion(withDefaults)))].join('\n  ')}`,
    );
  }
  const config = withDefaults as Config;
  checkReferences(config);
  return config;
}

/**
 * A bedrock or vertex provider without `baseUrl` has its endpoint from its region: when the
 * region is missing too, the operator is told of the region (cloud-provider-settings.ts).
 */
function nameMissingRegion(config: Record<string, unknown>): (problem: string) => string {
  const providers = (config.providers ?? {}) as Record<string, Record<string, unknown>>;
  return (problem) => {
    const missing = /^providers\.(.+)\.baseUrl: is required$/.exec(problem)?.[1];
    const provider = missing === undefined ? undefined : providers[missing];
    if (provider === undefined || provider.region !== undefined) return problem;
    if (provider.kind !== 'bedrock' && provider.kind !== 'vertex') return problem;
    return `providers.${missing}.region: is required for a ${provider.kind} provider`;
  };
}

function checkReferences(config: Config): void {
  const problems: string[] = [];
  const seen = new Set<string>();
  config.models.forEach((model, modelIndex) => {
    if (seen.has(model.id))
      problems.push(`models[${modelIndex}].id: duplicate model id "${model.id}"`);
    seen.add(model.id);
    model.deployments.forEach((deployment, deploymentIndex) => {
      if (!(deployment.provider in config.providers)) {
        problems.push(
          `models[${modelIndex}].deployments[${deploymentIndex}].provider: no provider named "${deployment.provider}"`,
        );
      } else if (
        deployment.tokenizer !== undefined &&
        ['anthropic', 'vertex'].includes(config.providers[deployment.provider]?.kind ?? '')
      ) {
        problems.push(
          `models[${modelIndex}].deployments[${deploymentIndex}].tokenizer: ${config.providers[deployment.provider]?.kind === 'vertex' ? 'a vertex' : 'an anthropic'} upstream counts its own prompts`,
        );
      } else if (
        config.providers[deployment.provider]?.kind === 'vertex' &&
        !/^(claude|gemini)-/.test(deployment.upstreamModel)
      ) {
        problems.push(
          `models[${modelIndex}].deployments[${deploymentIndex}].upstreamModel: a vertex provider serves Claude and Gemini models, named as Vertex AI names them (claude-sonnet-4-5@20250929, gemini-2.5-pro)`,
        );
      }
    });
    for (const [kind, price] of Object.entries(model.pricing)) {
      // Prices become integer micro-credits per million tokens; more digits would be rounded.
      if (price !== undefined && !Number.isInteger(Math.round(price * 1e6 * 1e3) / 1e3)) {
        problems.push(`models[${modelIndex}].pricing.${kind}: at most 6 decimal places`);
      }
    }
    if (model.maxOutputTokens > model.contextWindow) {
      problems.push(`models[${modelIndex}].maxOutputTokens: larger than contextWindow`);
    }
  });
  if (config.evaluation !== undefined) {
    const judge = config.models.find((model) => model.id === config.evaluation?.judgeModel);
    if (judge === undefined) {
      problems.push(`evaluation.judgeModel: no model with id "${config.evaluation.judgeModel}"`);
    } else if (!judge.capabilities.tools) {
      // The judge answers through a forced tool call (docs/evaluation.md).
      problems.push(`evaluation.judgeModel: the model "${judge.id}" has no tools capability`);
    }
  }
  problems.push(...checkSearchConfig(config.search));
  problems.push(...checkTranscriptionConfig(config));
  problems.push(...checkImagesConfig(config.images));
  if (config.store.backend === 'postgres' && config.store.postgresUrl === undefined) {
    problems.push('store.postgresUrl: is required when store.backend is "postgres"');
  }
  for (const [name, provider] of Object.entries(config.providers)) {
    try {
      const url = new URL(provider.baseUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    } catch {
      problems.push(`providers.${name}.baseUrl: not an http(s) URL`);
    }
    if (provider.forwardCompaction === true && provider.kind !== 'openai-responses') {
      problems.push(
        `providers.${name}.forwardCompaction: only an openai-responses provider has compaction`,
      );
    }
    if (
      provider.countInputTokens !== undefined &&
      provider.kind !== 'openai-chat' &&
      provider.kind !== 'openai-responses'
    ) {
      problems.push(
        `providers.${name}.countInputTokens: only an openai-chat or openai-responses provider has /v1/responses/input_tokens`,
      );
    }
    if (provider.tokenizePath !== undefined && provider.kind !== 'openai-chat') {
      problems.push(`providers.${name}.tokenizePath: only an openai-chat provider has one`);
    }
    problems.push(...checkCloudProvider(name, provider));
  }
  // Installers write this URL into client configuration (docs/installers.md).
  if (
    config.server.publicBaseUrl !== undefined &&
    !isPlainUrl(config.server.publicBaseUrl, ['http:', 'https:'])
  ) {
    problems.push(
      'server.publicBaseUrl: not an http(s) URL without credentials, query or fragment',
    );
  }
  const { transcribe, websocket } = config.connected;
  if (transcribe !== undefined && !isPlainUrl(transcribe.url, ['http:', 'https:'], true)) {
    problems.push('connected.transcribe.url: not an http(s) URL without credentials or fragment');
  }
  if (websocket !== undefined && !isPlainUrl(websocket.url, ['ws:', 'wss:'], true)) {
    problems.push('connected.websocket.url: not a ws(s) URL without credentials or fragment');
  }
  if (problems.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  }
}

/** A URL of one of the protocols without credentials or fragment; a query only where allowed. */
function isPlainUrl(value: string, protocols: string[], allowQuery = false): boolean {
  try {
    const url = new URL(value);
    return (
      protocols.includes(url.protocol) &&
      url.username === '' &&
      url.password === '' &&
      url.hash === '' &&
      (allowQuery || url.search === '')
    );
  } catch {
    return false;
  }
}

/** Environment variables that override the file; the only place that reads process.env. */
function applyEnvironment(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): void {
  const section = (name: string): Record<string, unknown> => {
    const value = raw[name];
    if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
    const created: Record<string, unknown> = {};
    raw[name] = created;
    return created;
  };
  const integer = (name: string, value: string): number => {
    if (!/^\d+$/.test(value))
      throw new ConfigError(`Invalid configuration:\n  ${name}: not an integer`);
    return Number(value);
  };
  if (env.PORT) section('server').port = integer('PORT', env.PORT);
  if (env.HOST) section('server').host = env.HOST;
  if (env.SWITCHYARD_PUBLIC_BASE_URL)
    section('server').publicBaseUrl = env.SWITCHYARD_PUBLIC_BASE_URL;
  if (env.SWITCHYARD_LOG_LEVEL) section('server').logLevel = env.SWITCHYARD_LOG_LEVEL;
  if (env.SWITCHYARD_DATA_DIR) raw.dataDir = env.SWITCHYARD_DATA_DIR;
  if (env.SWITCHYARD_STORE) section('store').backend = env.SWITCHYARD_STORE;
  if (env.SWITCHYARD_DATABASE_URL) section('store').postgresUrl = env.SWITCHYARD_DATABASE_URL;
  if (env.SWITCHYARD_REDIS_URL) section('store').redisUrl = env.SWITCHYARD_REDIS_URL;
}

export interface LoadedConfig {
  config: Config;
  /** The file read, or undefined when none was found and defaults apply. */
  source: string | undefined;
}

/**
 * Reads `SWITCHYARD_CONFIG` (or `./switchyard.config.json` when present), applies environment
 * overrides and validates.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): LoadedConfig {
  const explicit = env.SWITCHYARD_CONFIG === '' ? undefined : env.SWITCHYARD_CONFIG;
  const candidate = explicit ?? path.join(cwd, 'switchyard.config.json');
  let raw: Record<string, unknown> = {};
  let source: string | undefined;
  if (explicit !== undefined || existsSync(candidate)) {
    let text: string;
    try {
      text = readFileSync(candidate, 'utf8');
    } catch (error) {
      throw new ConfigError(
        `Cannot read configuration file ${candidate}: ${(error as Error).message}`,
      );
    }
    try {
      raw = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(
        `Configuration file ${candidate} is not valid JSON: ${jsonSyntaxProblem(error as Error, text)}`,
      );
    }
    source = candidate;
  }
  applyEnvironment(raw, env);
  const config = parseConfig(raw);
  config.dataDir = path.resolve(cwd, config.dataDir);
  return { config, source };
}

/**
 * V8 quotes the text around a JSON syntax error, and a configuration file may hold secrets
 * (provider headers, a database URL), so only the kind of error and where it is are told: the
 * message goes to the log and, on a reload, to the admin API's answer.
 */
function jsonSyntaxProblem(error: Error, text: string): string {
  const problem = error.message.replace(
    /,?\s*(?:\.\.\.)?".*"(?:\.\.\.)?\s+is not valid JSON$/s,
    '',
  );
  const position = / at position (\d+)/.exec(problem);
  if (position === null) return problem;
  const before = text.slice(0, Number(position[1]));
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `${problem.slice(0, position.index)} at line ${line}, column ${column}`;
}

/** The upstream key of a provider, read from the environment variable the configuration names. */
export function readProviderKey(
  apiKeyEnv: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (apiKeyEnv === undefined) return undefined;
  const value = env[apiKeyEnv];
  return value === undefined || value === '' ? undefined : value;
}

/** The operator credential for /api/admin, or undefined when none is configured. */
export function readAdminToken(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const value = env[config.admin.tokenEnv];
  return value === undefined || value === '' ? undefined : value;
}

/** The secret that seals compaction items (docs/decisions/0013), or undefined when unset. */
export function readSealKeySecret(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const value = env[config.compaction.sealKeyEnv];
  return value === undefined || value === '' ? undefined : value;
}
