/** What the bench sends: one entry per scenario, with the targets that can serve it. */

/**
 * floor: the piped forwarder (bare-forwarder.ts); floor-plain: the same written with `for await`
 * (plain-forwarder.ts) — the gateway is held to the cheaper of the two. peer: Portkey's gateway
 * (chat routes); ccr: claude-code-router (messages → chat routes).
 */
export type TargetName = 'floor' | 'floor-plain' | 'gateway' | 'peer' | 'ccr';

/** The targets that are a floor: the least a proxy can do, two ways. */
export const floorTargets: readonly TargetName[] = ['floor', 'floor-plain'];

export interface Scenario {
  id: string;
  title: string;
  path: '/v1/chat/completions' | '/v1/messages' | '/v4/ai/evaluation-model';
  body: string;
  /** Headers of the scenario itself, sent to every target. */
  headers?: Record<string, string>;
  /** A header given a fresh value on every request (an idempotency key). */
  freshHeader?: string;
  /** same: client and upstream share a dialect; cross: the gateway translates. */
  dialect: 'same' | 'cross';
  /** Served by the mock with latency (long-lived streams at high concurrency). */
  slow: boolean;
  targets: TargetName[];
  /** The floor scenario whose CPU/request this one is compared with. */
  floorReference: string;
  connections: number;
  /** Also run with one connection for latency without queueing. */
  latencyRun: boolean;
  inQuick: boolean;
}

const CHAT_MODEL = 'bench-chat';
/** The `ai-model-id` of the bench gateway's evaluation, answered by the Anthropic mock. */
export const EVALUATION_MODEL_ID = 'bench-evaluator';
const CLAUDE_MODEL = 'bench-claude';
const GEMINI_MODEL = 'bench-gemini';
/** Claude on a `bedrock` provider: InvokeModel streams, SigV4-signed calls. */
export const BEDROCK_CLAUDE_MODEL = 'bench-claude-bedrock';
const SLOW_CHAT_MODEL = 'bench-chat-slow';
/** `bench-chat` on 3 deployments × 3 keys: the router's decision against a single target. */
export const ROUTED_CHAT_MODEL = 'bench-chat-routed';

const question = 'Give me one sentence about freight yards.';

function chatBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: question },
    ],
    max_tokens: 256,
    ...(stream ? { stream: true } : {}),
  });
}

function messagesBody(model: string, stream: boolean): string {
  return JSON.stringify({
    model,
    max_tokens: 256,
    system: 'You are terse.',
    messages: [{ role: 'user', content: question }],
    ...(stream ? { stream: true } : {}),
  });
}

const filler = (seed: string, bytes: number) =>
  Array.from({ length: Math.ceil(bytes / 60) }, (_, index) =>
    `${seed} line ${index}: keep edits small, run the tests, report what changed.`.slice(0, 60),
  ).join('\n');

/** A Claude Code-like request: long system prompt, 25 tools with JSON schemas, a tool turn. */
function largeMessagesBody(model: string): string {
  const tools = Array.from({ length: 25 }, (_, index) => ({
    name: `bench_tool_${index}`,
    description: filler(`Tool ${index}`, 1500),
    input_schema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Absolute path of the file to act on.' },
        pattern: { type: 'string', description: 'A regular expression to search for.' },
        limit: { type: 'integer', minimum: 1, maximum: 2000 },
        options: {
          type: 'object',
          properties: {
            recursive: { type: 'boolean' },
            include: { type: 'array', items: { type: 'string' } },
          },
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
  }));
  return JSON.stringify({
    model,
    max_tokens: 1024,
    stream: true,
    system: [
      { type: 'text', text: 'You are an interactive command line coding assistant.' },
      { type: 'text', text: filler('System', 15_000), cache_control: { type: 'ephemeral' } },
    ],
    tools,
    messages: [
      { role: 'user', content: 'Find where the rate limiter is configured.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Searching the sources.' },
          {
            type: 'tool_use',
            id: 'toolu_bench_1',
            name: 'bench_tool_3',
            input: { path: '/repo/src', pattern: 'limits' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_bench_1', content: filler('Result', 14_000) },
          { type: 'text', text: 'Summarise it in one sentence.' },
        ],
      },
    ],
  });
}

/**
 * Three questions, one of each kind (docs/evaluation.md); the mock answers them with a tool call
 * (mock-upstream-bodies.ts EVALUATION_JSON).
 */
function evaluationBody(): string {
  return JSON.stringify({
    state: [
      { role: 'user', content: question },
      { role: 'assistant', content: 'Freight yards sort railcars into trains by destination.' },
    ],
    questions: {
      accurate: { type: 'boolean', instructions: 'Is the answer factually accurate?' },
      tone: {
        type: 'choice',
        instructions: 'What is the tone of the answer?',
        criteria: { neutral: 'Plain and factual', playful: 'Jokes or wordplay' },
      },
      brevity: {
        type: 'score',
        instructions: 'How well does it keep to one sentence?',
        criteria: ['rambles', 'a little long', 'exactly one sentence'],
      },
    },
  });
}

export function buildScenarios(quick: boolean): Scenario[] {
  const connections = 32;
  const all: Scenario[] = [
    {
      id: 'chat-json',
      title: 'chat → openai-chat, JSON',
      path: '/v1/chat/completions',
      body: chatBody(CHAT_MODEL, false),
      dialect: 'same',
      slow: false,
      targets: ['floor', 'gateway', 'peer'],
      floorReference: 'chat-json',
      connections,
      latencyRun: true,
      inQuick: true,
    },
    {
      id: 'chat-json-routed',
      title: 'chat → openai-chat, JSON, 3 deployments × 3 keys (routing cost vs chat-json)',
      path: '/v1/chat/completions',
      body: chatBody(ROUTED_CHAT_MODEL, false),
      dialect: 'same',
      slow: false,
      targets: ['gateway'],
      floorReference: 'chat-json',
      connections,
      latencyRun: false,
      inQuick: false,
    },
    {
      id: 'chat-sse',
      title: 'chat → openai-chat, SSE',
      path: '/v1/chat/completions',
      body: chatBody(CHAT_MODEL, true),
      dialect: 'same',
      slow: false,
      targets: ['floor', 'gateway', 'peer'],
      floorReference: 'chat-sse',
      connections,
      latencyRun: true,
      inQuick: true,
    },
    {
      id: 'messages-json',
      title: 'messages → anthropic, JSON',
      path: '/v1/messages',
      body: messagesBody(CLAUDE_MODEL, false),
      dialect: 'same',
      slow: false,
      targets: ['floor', 'gateway'],
      floorReference: 'messages-json',
      connections,
      latencyRun: true,
      inQuick: false,
    },
    {
      id: 'messages-sse',
      title: 'messages → anthropic, SSE',
      path: '/v1/messages',
      body: messagesBody(CLAUDE_MODEL, true),
      dialect: 'same',
      slow: false,
      targets: ['floor', 'gateway'],
      floorReference: 'messages-sse',
      connections,
      latencyRun: true,
      inQuick: false,
    },
    {
      id: 'messages-bedrock-sse',
      title: 'messages → bedrock (Claude, InvokeModel event stream, SigV4), SSE',
      path: '/v1/messages',
      body: messagesBody(BEDROCK_CLAUDE_MODEL, true),
      dialect: 'same',
      slow: false,
      targets: ['gateway'],
      floorReference: 'messages-sse',
      connections,
      latencyRun: false,
      inQuick: false,
    },
    {
      id: 'messages-to-chat-json',
      title: 'messages → openai-chat, JSON',
      path: '/v1/messages',
      body: messagesBody(CHAT_MODEL, false),
      dialect: 'cross',
      slow: false,
      targets: ['gateway', 'ccr'],
      floorReference: 'messages-json',
      connections,
      latencyRun: true,
      inQuick: false,
    },
    {
      id: 'messages-to-chat-sse',
      title: 'messages → openai-chat, SSE',
      path: '/v1/messages',
      body: messagesBody(CHAT_MODEL, true),
      dialect: 'cross',
      slow: false,
      targets: ['gateway', 'ccr'],
      floorReference: 'messages-sse',
      connections,
      latencyRun: true,
      inQuick: false,
    },
    {
      id: 'chat-to-messages-json',
      title: 'chat → anthropic, JSON',
      path: '/v1/chat/completions',
      body: chatBody(CLAUDE_MODEL, false),
      dialect: 'cross',
      slow: false,
      targets: ['gateway'],
      floorReference: 'chat-json',
      connections,
      latencyRun: true,
      inQuick: false,
    },
    {
      id: 'chat-to-messages-sse',
      title: 'chat → anthropic, SSE',
      path: '/v1/chat/completions',
      body: chatBody(CLAUDE_MODEL, true),
      dialect: 'cross',
      slow: false,
      targets: ['gateway'],
      floorReference: 'chat-sse',
      connections,
      latencyRun: true,
      inQuick: true,
    },
    {
      id: 'chat-gemini-sse',
      title: 'chat → gemini, SSE',
      path: '/v1/chat/completions',
      body: chatBody(GEMINI_MODEL, true),
      dialect: 'cross',
      slow: false,
      targets: ['gateway'],
      floorReference: 'chat-sse',
      connections,
      latencyRun: true,
      inQuick: false,
    },
    {
      id: 'large-body-sse',
      title: 'messages → anthropic, ~80 KB body, 25 tools, SSE',
      path: '/v1/messages',
      body: largeMessagesBody(CLAUDE_MODEL),
      dialect: 'same',
      slow: false,
      targets: ['floor', 'gateway'],
      floorReference: 'large-body-sse',
      connections: 16,
      latencyRun: true,
      inQuick: false,
    },
    {
      id: 'evaluation-3',
      title: 'evaluation, 3 questions → anthropic (one forced tool call)',
      path: '/v4/ai/evaluation-model',
      body: evaluationBody(),
      headers: {
        'ai-model-id': EVALUATION_MODEL_ID,
        'ai-evaluation-model-specification-version': '4',
      },
      // A fresh key per request: a repeated key would measure replays, not evaluations.
      freshHeader: 'idempotency-key',
      // The gateway turns the questions into a judge call and its answer back into typed
      // answers: a translation (docs/decisions/0092).
      dialect: 'cross',
      slow: false,
      targets: ['gateway'],
      floorReference: 'messages-json',
      connections,
      latencyRun: true,
      inQuick: true,
    },
    {
      id: 'slow-stream',
      title: 'chat → openai-chat, SSE, slow upstream, high concurrency',
      path: '/v1/chat/completions',
      body: chatBody(SLOW_CHAT_MODEL, true),
      dialect: 'same',
      slow: true,
      targets: ['floor', 'gateway', 'peer'],
      floorReference: 'slow-stream',
      connections: quick ? 128 : 256,
      latencyRun: false,
      inQuick: true,
    },
  ];
  // Every scenario a floor serves is served by both floors.
  for (const scenario of all) {
    if (scenario.targets.includes('floor'))
      scenario.targets.splice(scenario.targets.indexOf('floor') + 1, 0, 'floor-plain');
  }
  return quick ? all.filter((scenario) => scenario.inQuick) : all;
}
