import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { FakeUpstream, RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import {
  startUpstreamTestBed,
  testModel,
  upstreamKinds,
  type TestGateway,
  type UpstreamDialect,
} from '../support/test-gateway.ts';
import { startRecordingProxy, type ClientExchange } from './start-recording-proxy.ts';

/** The key the gateway holds for its upstream; the fake refuses calls without it. */
export const upstreamKey = 'real-clients-upstream-key';

/** One model per upstream dialect: each client meets its own dialect and a foreign one. */
export const realClientModels = {
  anthropic: 'rc-via-anthropic',
  chat: 'rc-via-chat',
  responses: 'rc-via-responses',
} as const;

/** Models on the cloud kinds, each on its own provider at the same fake upstream. */
export const realClientCloudModels = {
  'azure-openai': 'rc-via-azure-openai',
  bedrock: 'rc-via-bedrock',
} as const;

type CloudKind = keyof typeof realClientCloudModels;

/** Claude on Amazon Bedrock (InvokeModel), reached with the bed's key as a Bedrock API key. */
export const bedrockUpstreamModel = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

/**
 * A cloud kind's further provider settings and environment (region, credentials), and the
 * deployment's upstream model where its name matters, if any.
 */
const cloudProviderSettings: Partial<
  Record<
    CloudKind,
    { settings?: Record<string, unknown>; env?: Record<string, string>; upstreamModel?: string }
  >
> = {
  bedrock: { settings: { region: 'us-east-1' }, upstreamModel: bedrockUpstreamModel },
};

export type { UpstreamDialect };

/**
 * docs/decisions/0011: Codex always sends a `web_search` tool, which only an OpenAI-responses
 * upstream runs. The test models take `ignoreFields` from the shipped example configuration for
 * a model of the same upstream kind, so the suite proves that configuration works.
 */
function exampleIgnoreFields(kind: string): string[] {
  const example = JSON.parse(
    readFileSync(new URL('../../switchyard.config.json', import.meta.url), 'utf8'),
  ) as {
    providers: Record<string, { kind: string }>;
    models: { deployments: { provider: string }[]; ignoreFields?: string[] }[];
  };
  const model = example.models.find(
    (candidate) => example.providers[candidate.deployments[0]?.provider ?? '']?.kind === kind,
  );
  if (model === undefined) throw new Error(`switchyard.config.json has no ${kind} model`);
  return model.ignoreFields ?? [];
}

/** A private home and working directory for one client run. */
export interface ClientWorkspace {
  home: string;
  cwd: string;
}

export interface RealClientBed {
  fake: FakeUpstream;
  gateway: TestGateway;
  /** Where clients point: a recording relay in front of the listening gateway, without `/v1`. */
  origin: string;
  /** What the clients sent the gateway and what it answered, since the last `reset()`. */
  exchanges: ClientExchange[];
  token: string;
  newWorkspace(): Promise<ClientWorkspace>;
  /** Clears the fake's requests and script, and the recorded exchanges. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * A listening gateway whose three providers point at one fake upstream requiring a key; `config`
 * adds further configuration (a search provider for the MCP suite).
 */
export async function startRealClientBed(
  options: { config?: Record<string, unknown> } = {},
): Promise<RealClientBed> {
  const dialects = Object.keys(realClientModels) as UpstreamDialect[];
  const cloudKinds = Object.keys(realClientCloudModels) as CloudKind[];
  const bed = await startUpstreamTestBed({
    providers: Object.fromEntries([
      ...dialects.map((dialect) => [dialect, { kind: upstreamKinds[dialect] }]),
      ...cloudKinds.map((kind) => [kind, { kind, ...cloudProviderSettings[kind]?.settings }]),
    ]),
    models: [
      ...dialects.map((dialect) =>
        testModel(realClientModels[dialect], dialect, {
          // As large as the clients ask for (Claude Code: max_tokens 32000).
          contextWindow: 200_000,
          maxOutputTokens: 32_000,
          ignoreFields: exampleIgnoreFields(upstreamKinds[dialect]),
        }),
      ),
      ...cloudKinds.map((kind) =>
        testModel(realClientCloudModels[kind], kind, {
          ...(cloudProviderSettings[kind]?.upstreamModel !== undefined
            ? {
                deployments: [
                  { provider: kind, upstreamModel: cloudProviderSettings[kind]?.upstreamModel },
                ],
              }
            : {}),
          contextWindow: 200_000,
          maxOutputTokens: 32_000,
          // Azure speaks the responses dialect to Codex, as the example's OpenAI model does.
          ignoreFields: exampleIgnoreFields('openai-responses'),
        }),
      ),
    ],
    upstreamKey,
    env: Object.assign({}, ...cloudKinds.map((kind) => cloudProviderSettings[kind]?.env)),
    listen: true,
    ...(options.config !== undefined ? { config: options.config } : {}),
  });
  const { fake, gateway, token } = bed;
  const proxy = await startRecordingProxy(bed.origin);
  const workRoot = await mkdtemp(path.join(tmpdir(), 'switchyard-real-clients-'));
  let workspaces = 0;
  return {
    fake,
    gateway,
    origin: proxy.origin,
    exchanges: proxy.exchanges,
    token,
    async newWorkspace() {
      workspaces += 1;
      const home = path.join(workRoot, `run-${workspaces}`, 'home');
      const cwd = path.join(workRoot, `run-${workspaces}`, 'project');
      await mkdir(home, { recursive: true });
      await mkdir(cwd, { recursive: true });
      return { home, cwd };
    },
    reset() {
      fake.reset();
      proxy.exchanges.length = 0;
    },
    async close() {
      await proxy.close();
      await bed.close();
      await rm(workRoot, { recursive: true, force: true });
    },
  };
}

/**
 * Starts the bed before a suite's tests (handing it to `use`), clears it before each test and
 * closes it after the suite.
 */
export function useRealClientBed(
  use: (bed: RealClientBed) => void,
  options: () => Promise<{ config?: Record<string, unknown> }> = async () => ({}),
): void {
  let bed: RealClientBed | undefined;
  beforeAll(async () => {
    bed = await startRealClientBed(await options());
    use(bed);
  });
  afterAll(async () => {
    await bed?.close();
  });
  beforeEach(() => bed?.reset());
}

/** The generation requests that reached the fake upstream, in arrival order. */
export function generationRequests(fake: FakeUpstream): RecordedRequest[] {
  return fake.requests.filter(
    (request) => request.dialect !== undefined && !countingPaths.has(request.path),
  );
}

/** The upstream's counting endpoints: the gateway asks them beside some generations. */
const countingPaths = new Set(['/v1/messages/count_tokens', '/v1/responses/input_tokens']);

/** The client's generation requests the gateway answered with `status` (POSTs only). */
export function clientPosts(exchanges: ClientExchange[], status?: number): ClientExchange[] {
  return exchanges.filter(
    (exchange) =>
      exchange.method === 'POST' && (status === undefined || exchange.status === status),
  );
}
