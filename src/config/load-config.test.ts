import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from './load-config.ts';

const provider = { kind: 'anthropic', baseUrl: 'https://api.example.com', apiKeyEnv: 'KEY' };
const model = {
  id: 'm',
  deployments: [{ provider: 'p', upstreamModel: 'u' }],
  contextWindow: 1000,
  maxOutputTokens: 100,
  pricing: { input: 1, output: 2 },
};

describe('configuration', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'switchyard-config-'));
  });
  afterEach(async () => rm(directory, { recursive: true, force: true }));

  it('fills defaults for an empty configuration: embedded SQLite under ./data on port 8080', () => {
    const config = parseConfig({});
    expect(config.server.port).toBe(8080);
    expect(config.store.backend).toBe('sqlite');
    expect(config.dataDir).toBe('./data');
  });

  it('fills provider defaults and model capabilities', () => {
    const config = parseConfig({ providers: { p: provider }, models: [model] });
    expect(config.providers.p?.firstByteTimeoutMs).toBe(120_000);
    expect(config.models[0]?.capabilities.streaming).toBe(true);
  });

  it('gives a gemini provider the Gemini API as its default origin', () => {
    const config = parseConfig({
      providers: { g: { kind: 'gemini', apiKeyEnv: 'GEMINI_API_KEY' } },
    });
    expect(config.providers.g?.baseUrl).toBe('https://generativelanguage.googleapis.com');
  });

  it.each([
    [
      { providers: { p: provider }, models: [{ ...model, pricing: { input: 1 } }] },
      'models[0].pricing.output',
    ],
    [
      {
        providers: { p: provider },
        models: [{ ...model, deployments: [{ provider: 'q', upstreamModel: 'u' }] }],
      },
      'models[0].deployments[0].provider',
    ],
    [{ providers: { p: { ...provider, kind: 'cohere' } } }, 'providers.p.kind'],
    [
      {
        providers: {
          p: { kind: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com/v1beta' },
        },
      },
      'providers.p.baseUrl',
    ],
    [
      { providers: { p: { kind: 'gemini', apiKeyEnv: 'K', region: 'us-east1' } } },
      'providers.p.region',
    ],
    [{ providers: { p: { kind: 'gemini' } } }, 'providers.p.apiKeyEnv'],
    [{ providers: { p: { ...provider, baseUrl: 'ftp://x' } } }, 'providers.p.baseUrl'],
    [{ providers: { p: { ...provider, countInputTokens: true } } }, 'providers.p.countInputTokens'],
    [{ providers: { p: { ...provider, tokenizePath: '/tokenize' } } }, 'providers.p.tokenizePath'],
    [
      {
        providers: { p: provider },
        models: [
          {
            ...model,
            deployments: [{ provider: 'p', upstreamModel: 'u', tokenizer: 'o200k_base' }],
          },
        ],
      },
      'models[0].deployments[0].tokenizer',
    ],
    [
      {
        providers: { p: provider },
        models: [
          { ...model, deployments: [{ provider: 'p', upstreamModel: 'u', tokenizer: 'llama3' }] },
        ],
      },
      'models[0].deployments[0].tokenizer',
    ],
    [{ server: { port: 'eighty' } }, 'server.port'],
    [{ stroe: {} }, 'stroe'],
    [{ store: { backend: 'postgres' } }, 'store.postgresUrl'],
    [
      {
        providers: { p: provider },
        models: [model],
        evaluation: { modelId: 'e', judgeModel: 'x' },
      },
      'evaluation.judgeModel: no model',
    ],
    [
      {
        providers: { p: provider },
        models: [{ ...model, capabilities: { tools: false } }],
        evaluation: { modelId: 'e', judgeModel: 'm' },
      },
      'evaluation.judgeModel: the model "m" has no tools',
    ],
    [{ providers: { p: provider }, models: [model, model] }, 'models[1].id'],
    [
      {
        providers: { p: provider },
        models: [{ ...model, pricing: { input: 0.0000001, output: 1 } }],
      },
      'models[0].pricing.input',
    ],
  ])('names the bad key %#', (raw, key) => {
    expect(() => parseConfig(raw)).toThrow(ConfigError);
    expect(() => parseConfig(raw)).toThrow(key);
  });

  it('reads the file named by SWITCHYARD_CONFIG and lets the environment override it', async () => {
    const file = path.join(directory, 'config.json');
    await writeFile(
      file,
      JSON.stringify({ server: { port: 9000 }, providers: { p: provider }, models: [model] }),
    );
    const { config, source } = loadConfig(
      {
        SWITCHYARD_CONFIG: file,
        PORT: '9100',
        SWITCHYARD_DATA_DIR: 'state',
        SWITCHYARD_STORE: 'postgres',
        SWITCHYARD_DATABASE_URL: 'postgres://x/y',
      },
      directory,
    );
    expect(source).toBe(file);
    expect(config.server.port).toBe(9100);
    expect(config.dataDir).toBe(path.join(directory, 'state'));
    expect(config.store).toMatchObject({ backend: 'postgres', postgresUrl: 'postgres://x/y' });
  });

  it('stops on a file that is not JSON, naming the file', async () => {
    const file = path.join(directory, 'broken.json');
    await writeFile(file, '{ "server": ');
    expect(() => loadConfig({ SWITCHYARD_CONFIG: file }, directory)).toThrow(file);
  });

  it.each([
    ['{\n  "providers": { "p": { "headers": { "authorization": Bearer sk-hidden } } }\n}', "'B'"],
    ['{\n  "store": { "postgresUrl": "postgres://u:sk-hidden@db/x", }\n}', 'line 2, column'],
  ])('tells where a file is not JSON without quoting it %#', async (text, where) => {
    const file = path.join(directory, 'secret.json');
    await writeFile(file, text);
    let message = '';
    try {
      loadConfig({ SWITCHYARD_CONFIG: file }, directory);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('is not valid JSON');
    expect(message).toContain(where);
    expect(message).not.toContain('sk-hidden');
  });

  it('refuses a non-integer PORT', () => {
    expect(() => loadConfig({ PORT: 'abc' }, directory)).toThrow('PORT');
  });

  it('accepts the shipped example configuration', () => {
    const { config } = loadConfig(
      { SWITCHYARD_CONFIG: path.resolve(import.meta.dirname, '../../switchyard.config.json') },
      directory,
    );
    expect(config.models.length).toBeGreaterThan(0);
  });
});

describe('a vertex provider', () => {
  const vertex = { kind: 'vertex', project: 'my-proj', region: 'us-east5' };
  const claude = {
    ...model,
    deployments: [{ provider: 'v', upstreamModel: 'claude-sonnet-4-5@20250929' }],
  };

  it("defaults to its region's endpoint and to the key file GOOGLE_APPLICATION_CREDENTIALS names", () => {
    const config = parseConfig({ providers: { v: vertex }, models: [claude] });
    expect(config.providers.v).toMatchObject({
      baseUrl: 'https://us-east5-aiplatform.googleapis.com',
      apiKeyEnv: 'GOOGLE_APPLICATION_CREDENTIALS',
    });
    const named = parseConfig({
      providers: { v: { ...vertex, apiKeyEnv: ['VERTEX_KEY_A', 'VERTEX_KEY_B'] } },
      models: [claude],
    });
    expect(named.providers.v?.apiKeyEnv).toEqual(['VERTEX_KEY_A', 'VERTEX_KEY_B']);
  });

  it.each([
    [
      { providers: { v: { ...vertex, project: undefined } }, models: [claude] },
      'providers.v.project',
    ],
    [
      {
        providers: { v: vertex },
        models: [{ ...claude, deployments: [{ provider: 'v', upstreamModel: 'llama-3.1-405b' }] }],
      },
      'models[0].deployments[0].upstreamModel: a vertex provider serves Claude and Gemini models',
    ],
    [
      {
        providers: { v: vertex },
        models: [
          {
            ...claude,
            deployments: [
              {
                provider: 'v',
                upstreamModel: 'claude-sonnet-4-5@20250929',
                tokenizer: 'o200k_base',
              },
            ],
          },
        ],
      },
      'models[0].deployments[0].tokenizer: a vertex upstream counts its own prompts',
    ],
  ])('refuses %j', (raw, message) => {
    expect(() => parseConfig(raw)).toThrow(message);
  });
});

describe('cloud provider settings', () => {
  it('names the missing region of a bedrock or vertex provider, not the baseUrl it implies', () => {
    for (const kind of ['bedrock', 'vertex']) {
      expect(() =>
        parseConfig({ providers: { cloud: { kind, project: 'p' } }, models: [] }),
      ).toThrow(new RegExp(`providers\\.cloud\\.region: is required for a ${kind} provider`));
    }
    // With the region, the endpoint is its public one.
    const config = parseConfig({
      providers: { cloud: { kind: 'bedrock', region: 'eu-west-3' } },
      models: [],
    });
    expect(config.providers.cloud?.baseUrl).toBe('https://bedrock-runtime.eu-west-3.amazonaws.com');
  });
});
