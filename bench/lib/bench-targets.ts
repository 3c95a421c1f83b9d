/**
 * Starts the processes one bench run needs: two mock upstreams (fast and slow), a floor in front
 * of each, Switchyard as a user runs it, and the peer gateway when it is installed.
 */
import { build as esbuild } from 'esbuild';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, startProcess } from './bench-process.ts';
import type { BenchProcess } from './bench-process.ts';
import {
  EVALUATION_MODEL_ID,
  BEDROCK_CLAUDE_MODEL,
  ROUTED_CHAT_MODEL,
  type Scenario,
  type TargetName,
} from './bench-scenarios.ts';
import { TRANSCRIPTION_MODEL_ID } from './measure-transcription-uploads.ts';

const run = promisify(execFile);

export const SLOW_LATENCY_MS = 200;
export const SLOW_CHUNK_INTERVAL_MS = 20;

/** The image model of the image job scenario and its price per image, in credits. */
export const IMAGE_MODEL_ID = 'bench-image';
export const IMAGE_PRICE_CREDITS = 0.01;
/** How long the slow mock keeps an image job pending. */
export const IMAGE_JOB_MS = 2000;

export type UpstreamDialect = 'anthropic' | 'openai-chat' | 'openai-responses';

/** One model per upstream dialect on the slow mock, for the time to first text. */
export const SLOW_MODEL_BY_DIALECT: Record<UpstreamDialect, string> = {
  anthropic: 'bench-claude-slow',
  'openai-chat': 'bench-chat-slow',
  'openai-responses': 'bench-responses-slow',
};

export interface BenchTargets {
  mock: BenchProcess;
  slowMock: BenchProcess;
  floor: BenchProcess;
  slowFloor: BenchProcess;
  floorPlain: BenchProcess;
  slowFloorPlain: BenchProcess;
  gateway: BenchProcess;
  gatewayToken: string;
  /** The account of the gateway token (the image job scenario reads its balance). */
  gatewayAccountId: string;
  peer?: BenchProcess;
  ccr?: BenchProcess;
  /** Why a peer is not running (not installed, failed to start, skipped). */
  peerProblems: string[];
  dataDir: string;
  /** The gateway's environment (data dir, config), for operator CLI reads. */
  gatewayEnv: Record<string, string>;
}

const TS = ['--import', 'tsx'];

async function startMock(root: string, name: string, env: Record<string, string>) {
  const port = await freePort();
  return startProcess({
    name,
    args: [...TS, 'bench/lib/mock-upstream.ts'],
    env: { PORT: String(port), ...env },
    port,
    cwd: root,
  });
}

async function startFloor(
  root: string,
  name: string,
  upstream: BenchProcess,
  source: 'bare-forwarder' | 'plain-forwarder',
) {
  const port = await freePort();
  // Plain JavaScript on plain Node, like the gateway's build: no loader thread in either figure.
  const outfile = join(root, `dist/bench/${source}.js`);
  await esbuild({
    entryPoints: [join(root, `bench/lib/${source}.ts`)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'warning',
  });
  return startProcess({
    name,
    args: [outfile],
    env: { PORT: String(port), UPSTREAM_URL: `http://127.0.0.1:${upstream.port}` },
    port,
    cwd: root,
  });
}

function gatewayConfig(mockPort: number, slowMockPort: number, routed: boolean) {
  const model = (id: string, provider: string, upstreamModel: string) => ({
    id,
    deployments: [{ provider, upstreamModel }],
    capabilities: {
      streaming: true,
      tools: true,
      vision: false,
      reasoning: false,
      promptCache: true,
    },
    contextWindow: 200_000,
    maxOutputTokens: 4096,
    pricing: { input: 0.1, output: 0.4 },
  });
  const provider = (kind: string, port: number) => ({
    kind,
    baseUrl: `http://127.0.0.1:${port}`,
    apiKeyEnv: 'BENCH_UPSTREAM_KEY',
  });
  return {
    server: { host: '127.0.0.1', shutdownGraceMs: 2000 },
    store: { backend: 'sqlite' },
    providers: {
      'mock-chat': provider('openai-chat', mockPort),
      // Three keys of one account: with three deployments, the routed model's nine targets.
      ...(routed
        ? {
            'mock-chat-keys': {
              ...provider('openai-chat', mockPort),
              apiKeyEnv: ['BENCH_UPSTREAM_KEY', 'BENCH_UPSTREAM_KEY_2', 'BENCH_UPSTREAM_KEY_3'],
            },
          }
        : {}),
      'mock-anthropic': provider('anthropic', mockPort),
      'mock-gemini': provider('gemini', mockPort),
      // Signed with SigV4 from the bench's AWS variables, as a deployment without an API key is.
      'mock-bedrock': {
        kind: 'bedrock',
        region: 'us-east-1',
        baseUrl: `http://127.0.0.1:${mockPort}`,
      },
      'slow-chat': provider('openai-chat', slowMockPort),
      'slow-anthropic': provider('anthropic', slowMockPort),
      'slow-responses': provider('openai-responses', slowMockPort),
      'mock-audio': provider('openai-transcription', mockPort),
    },
    models: [
      model('bench-chat', 'mock-chat', 'gpt-4.1-mini'),
      ...(routed
        ? [
            {
              ...model(ROUTED_CHAT_MODEL, 'mock-chat-keys', 'gpt-4.1-mini'),
              deployments: ['gpt-4.1-mini', 'gpt-4.1-mini-2', 'gpt-4.1-mini-3'].map(
                (upstreamModel) => ({ provider: 'mock-chat-keys', upstreamModel }),
              ),
            },
          ]
        : []),
      model('bench-claude', 'mock-anthropic', 'claude-sonnet-4-5'),
      model('bench-gemini', 'mock-gemini', 'gemini-2.5-flash'),
      model(BEDROCK_CLAUDE_MODEL, 'mock-bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'),
      model(SLOW_MODEL_BY_DIALECT['openai-chat'], 'slow-chat', 'gpt-4.1-mini'),
      model(SLOW_MODEL_BY_DIALECT.anthropic, 'slow-anthropic', 'claude-sonnet-4-5'),
      model(SLOW_MODEL_BY_DIALECT['openai-responses'], 'slow-responses', 'gpt-4.1-mini'),
    ],
    evaluation: { modelId: EVALUATION_MODEL_ID, judgeModel: 'bench-claude' },
    transcription: {
      models: [
        {
          id: TRANSCRIPTION_MODEL_ID,
          deployments: [{ provider: 'mock-audio', upstreamModel: 'whisper-1' }],
          pricing: { perSecond: 0.000001 },
        },
      ],
    },
    // The image job scenario: a job-style (BFL) upstream on the slow mock.
    images: {
      providers: [
        {
          id: 'slow-images',
          kind: 'bfl',
          baseUrl: `http://127.0.0.1:${slowMockPort}`,
          apiKeyEnv: 'BENCH_UPSTREAM_KEY',
          concurrency: 256,
          maxConnections: 64,
          pollIntervalMs: 250,
        },
      ],
      models: [
        {
          id: IMAGE_MODEL_ID,
          deployments: [{ provider: 'slow-images', upstreamModel: 'bench-flux' }],
          prices: [{ resolution: '1K', perImage: IMAGE_PRICE_CREDITS }],
        },
      ],
      syncWaitMs: 0,
    },
    // Generous, so the limiter runs on every request without ever refusing one.
    limits: {
      token: {
        requestsPerMinute: 100_000_000,
        tokensPerMinute: 2_000_000_000,
        concurrentRequests: 100_000,
      },
    },
  };
}

/**
 * The environment and Node flags `npm start` runs the gateway with (package.json
 * `scripts.start`: `NAME=value … [exec] node <flags> dist/main.js`), so that the benchmark measures the
 * gateway as a user runs it (docs/performance.md, memory).
 */
export function startScriptCommand(root: string): {
  env: Record<string, string>;
  nodeArgs: string[];
} {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const words = manifest.scripts.start.split(/\s+/);
  const env: Record<string, string> = {};
  while (words.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(words[0] as string)) {
    const [name, ...value] = (words.shift() as string).split('=');
    env[name as string] = value.join('=');
  }
  if (words[0] === 'exec') words.shift();
  if (words[0] !== 'node' || words.at(-1) !== 'dist/main.js') {
    throw new Error(`bench: cannot read the command of "npm start": ${manifest.scripts.start}`);
  }
  return { env, nodeArgs: words.slice(1, -1) };
}

async function startGateway(
  root: string,
  mock: BenchProcess,
  slowMock: BenchProcess,
  cpuProfileDir?: string,
  nodeArgsInstead?: string[],
  extraEnv: Record<string, string> = {},
  routed = true,
) {
  const startScript = startScriptCommand(root);
  const nodeArgs = nodeArgsInstead ?? startScript.nodeArgs;
  const dataDir = mkdtempSync(join(tmpdir(), 'switchyard-bench-'));
  const configPath = join(dataDir, 'bench.config.json');
  writeFileSync(
    configPath,
    JSON.stringify(gatewayConfig(mock.port, slowMock.port, routed), null, 2),
  );
  const port = await freePort();
  const env = {
    ...startScript.env,
    PORT: String(port),
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_CONFIG: configPath,
    SWITCHYARD_LOG_LEVEL: 'warn',
    BENCH_UPSTREAM_KEY: 'sk-bench-upstream',
    BENCH_UPSTREAM_KEY_2: 'sk-bench-upstream-2',
    BENCH_UPSTREAM_KEY_3: 'sk-bench-upstream-3',
    AWS_ACCESS_KEY_ID: 'AKIDBENCHEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'bench-secret-access-key',
    ...extraEnv,
  };
  const { stdout } = await run(
    process.execPath,
    ['bin/switchyard.js', '--json', 'bootstrap', '--name', 'bench', '--credits', '1000000'],
    { cwd: root, env: { ...process.env, ...env }, timeout: 30_000 },
  );
  const printed = JSON.parse(stdout) as { token?: string; account?: { id?: string } };
  const token = printed.token;
  const accountId = printed.account?.id;
  if (typeof token !== 'string' || typeof accountId !== 'string')
    throw new Error(`bootstrap printed no token: ${stdout}`);
  // Each image job reserves its results' worst case against the storage quota while it runs
  // (docs/decisions/0117): room for every job of the image scenario at once, so none is refused.
  await run(
    process.execPath,
    ['bin/switchyard.js', 'account', 'storage-quota', accountId, '100GiB'],
    { cwd: root, env: { ...process.env, ...env }, timeout: 30_000 },
  );
  const profile = cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : [];
  // As `npm start` runs it: the build, on plain Node.
  await run(process.execPath, ['scripts/build-gateway.mjs'], { cwd: root, timeout: 60_000 });
  const gateway = await startProcess({
    name: 'gateway',
    args: [...profile, ...nodeArgs, 'dist/main.js'],
    env,
    port,
    cwd: root,
    readyPath: '/healthz',
  });
  return { gateway, token, accountId, dataDir, env };
}

export const CCR_KEY = 'bench-ccr-key';

/**
 * claude-code-router (`bench/peer-ccr`), the most used TypeScript messages → chat proxy, in the
 * foreground (`ccr start`) with a config under a HOME of its own that routes every request to
 * the fast mock's chat route.
 */
async function startCcr(root: string, mock: BenchProcess): Promise<BenchProcess | string> {
  const entry = join(
    root,
    'bench/peer-ccr/node_modules/@musistudio/claude-code-router/dist/cli.js',
  );
  if (!existsSync(entry)) {
    return 'ccr not installed: run `npm ci --prefix bench/peer-ccr` (needs the npm registry)';
  }
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), 'switchyard-bench-ccr-'));
  mkdirSync(join(home, '.claude-code-router'));
  writeFileSync(
    join(home, '.claude-code-router', 'config.json'),
    JSON.stringify({
      LOG: false,
      HOST: '127.0.0.1',
      PORT: port,
      APIKEY: CCR_KEY,
      NON_INTERACTIVE_MODE: true,
      Providers: [
        {
          name: 'mock',
          api_base_url: `http://127.0.0.1:${mock.port}/v1/chat/completions`,
          api_key: 'sk-bench-upstream',
          models: ['gpt-4.1-mini'],
        },
      ],
      Router: { default: 'mock,gpt-4.1-mini' },
    }),
  );
  try {
    return await startProcess({
      name: 'ccr',
      args: [entry, 'start'],
      env: { HOME: home, NODE_ENV: 'production' },
      port,
      cwd: join(root, 'bench/peer-ccr'),
    });
  } catch (error) {
    return `ccr failed to start: ${error instanceof Error ? error.message : String(error)}`;
  }
}

async function startPeer(root: string): Promise<BenchProcess | string> {
  const entry = join(root, 'bench/peer/node_modules/@portkey-ai/gateway/build/start-server.js');
  if (!existsSync(entry)) {
    return 'peer not installed: run `npm ci --prefix bench/peer` (needs the npm registry)';
  }
  const port = await freePort();
  try {
    // start-server.js reads --port=N; --headless skips the log UI (package README, build source).
    return await startProcess({
      name: 'peer',
      args: [entry, `--port=${port}`, '--headless'],
      env: { NODE_ENV: 'production' },
      port,
      cwd: join(root, 'bench/peer'),
    });
  } catch (error) {
    return `peer failed to start: ${error instanceof Error ? error.message : String(error)}`;
  }
}

export async function startTargets(
  root: string,
  options: {
    withPeer: boolean;
    upstreamWrites: 'one' | 'per-event';
    cpuProfileDir?: string;
    gatewayNodeArgs?: string[];
    /** Further variables for the gateway (`--otlp` points its traces at a sink). */
    gatewayEnv?: Record<string, string>;
    /**
     * Configure the model on 3 deployments × 3 keys (default). A build from before several keys
     * per provider cannot read it: `bench:compare` leaves it out unless it compares that model.
     */
    routedModel?: boolean;
  },
): Promise<BenchTargets> {
  const mock = await startMock(root, 'mock', { MOCK_WRITES: options.upstreamWrites });
  const slowMock = await startMock(root, 'slow-mock', {
    MOCK_LATENCY_MS: String(SLOW_LATENCY_MS),
    MOCK_CHUNK_INTERVAL_MS: String(SLOW_CHUNK_INTERVAL_MS),
    MOCK_IMAGE_JOB_MS: String(IMAGE_JOB_MS),
  });
  const floor = await startFloor(root, 'floor', mock, 'bare-forwarder');
  const slowFloor = await startFloor(root, 'slow-floor', slowMock, 'bare-forwarder');
  const floorPlain = await startFloor(root, 'floor-plain', mock, 'plain-forwarder');
  const slowFloorPlain = await startFloor(root, 'slow-floor-plain', slowMock, 'plain-forwarder');
  const { gateway, token, accountId, dataDir, env } = await startGateway(
    root,
    mock,
    slowMock,
    options.cpuProfileDir,
    options.gatewayNodeArgs,
    options.gatewayEnv,
    options.routedModel ?? true,
  );
  const peer = options.withPeer ? await startPeer(root) : 'peers skipped (--no-peer)';
  const ccr = options.withPeer ? await startCcr(root, mock) : undefined;
  return {
    mock,
    slowMock,
    floor,
    slowFloor,
    floorPlain,
    slowFloorPlain,
    gateway,
    gatewayToken: token,
    gatewayAccountId: accountId,
    gatewayEnv: env,
    dataDir,
    ...(typeof peer === 'string' ? {} : { peer }),
    ...(typeof ccr === 'object' ? { ccr } : {}),
    peerProblems: [peer, ccr].filter((problem) => typeof problem === 'string'),
  };
}

export function removeDataDir(targets: BenchTargets): void {
  rmSync(targets.dataDir, { recursive: true, force: true });
}

/** The process serving `scenario` for `target`, its URL and headers. */
export function endpoint(
  targets: BenchTargets,
  target: TargetName,
  scenario: Scenario,
): { process: BenchProcess; url: string; headers: Record<string, string> } {
  const json = { 'content-type': 'application/json' };
  const messages: Record<string, string> =
    scenario.path === '/v1/messages' ? { 'anthropic-version': '2023-06-01' } : {};
  if (target === 'gateway') {
    return {
      process: targets.gateway,
      url: `http://127.0.0.1:${targets.gateway.port}${scenario.path}`,
      headers: {
        ...json,
        ...messages,
        ...scenario.headers,
        ...(scenario.freshHeader === undefined
          ? {}
          : { [scenario.freshHeader]: 'bench-preflight' }),
        authorization: `Bearer ${targets.gatewayToken}`,
      },
    };
  }
  if (target === 'floor' || target === 'floor-plain') {
    const floor =
      target === 'floor'
        ? scenario.slow
          ? targets.slowFloor
          : targets.floor
        : scenario.slow
          ? targets.slowFloorPlain
          : targets.floorPlain;
    return {
      process: floor,
      url: `http://127.0.0.1:${floor.port}${scenario.path}`,
      headers: { ...json, ...messages, authorization: 'Bearer sk-bench-upstream' },
    };
  }
  if (target === 'ccr') {
    if (!targets.ccr) throw new Error('ccr not running');
    return {
      process: targets.ccr,
      url: `http://127.0.0.1:${targets.ccr.port}${scenario.path}`,
      headers: { ...json, ...messages, 'x-api-key': CCR_KEY },
    };
  }
  if (!targets.peer) throw new Error('peer not running');
  const upstream = scenario.slow ? targets.slowMock : targets.mock;
  return {
    process: targets.peer,
    url: `http://127.0.0.1:${targets.peer.port}${scenario.path}`,
    headers: {
      ...json,
      authorization: 'Bearer sk-bench-upstream',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': `http://127.0.0.1:${upstream.port}/v1`,
    },
  };
}
