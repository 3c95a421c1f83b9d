/**
 * Fixed answers of the bench's mock upstream: a ~600-byte chat completion, an Anthropic message,
 * and 20-event SSE variants of each. Shapes follow the public OpenAI chat and Anthropic messages
 * references closely enough for the gateway's decoders (usage included, finish reasons set).
 */
export const WORDS =
  'Switchyard relays this fixed answer so the benchmark measures the gateway, not the model. ' +
  'Every request gets the same bytes back, which keeps runs comparable across targets and rounds.';

/** The answer text cut into `count` pieces of roughly equal length. */
export function pieces(count: number): string[] {
  const size = Math.ceil(WORDS.length / count);
  return Array.from({ length: count }, (_, index) => WORDS.slice(index * size, (index + 1) * size));
}

export const CHAT_JSON = JSON.stringify({
  id: 'chatcmpl-bench000000000000000000001',
  object: 'chat.completion',
  created: 1767225600,
  model: 'gpt-4.1-mini-2025-04-14',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: WORDS, refusal: null, annotations: [] },
      logprobs: null,
      finish_reason: 'stop',
    },
  ],
  usage: {
    prompt_tokens: 42,
    completion_tokens: 38,
    total_tokens: 80,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
  },
  service_tier: 'default',
  system_fingerprint: 'fp_bench0001',
});

export const MESSAGES_JSON = JSON.stringify({
  id: 'msg_01BenchBenchBenchBench0001',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [{ type: 'text', text: WORDS }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: {
    input_tokens: 42,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 38,
    service_tier: 'standard',
  },
});

function chatChunk(delta: object, finishReason: string | null): string {
  return JSON.stringify({
    id: 'chatcmpl-bench000000000000000000001',
    object: 'chat.completion.chunk',
    created: 1767225600,
    model: 'gpt-4.1-mini-2025-04-14',
    system_fingerprint: 'fp_bench0001',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  });
}

/** 20 `data:` events (role, 17 text deltas, finish, usage) and the `[DONE]` sentinel. */
export const CHAT_SSE: string[] = [
  chatChunk({ role: 'assistant', content: '' }, null),
  ...pieces(17).map((text) => chatChunk({ content: text }, null)),
  chatChunk({}, 'stop'),
  JSON.stringify({
    id: 'chatcmpl-bench000000000000000000001',
    object: 'chat.completion.chunk',
    created: 1767225600,
    model: 'gpt-4.1-mini-2025-04-14',
    choices: [],
    usage: { prompt_tokens: 42, completion_tokens: 38, total_tokens: 80 },
  }),
  '[DONE]',
].map((data) => `data: ${data}\n\n`);

function event(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
}

/** 20 events: message_start, block start, ping, 14 text deltas, block stop, delta, stop. */
export const MESSAGES_SSE: string[] = [
  event('message_start', {
    message: {
      id: 'msg_01BenchBenchBenchBench0001',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: 42,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
      },
    },
  }),
  event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
  event('ping', {}),
  ...pieces(14).map((text) =>
    event('content_block_delta', { index: 0, delta: { type: 'text_delta', text } }),
  ),
  event('content_block_stop', { index: 0 }),
  event('message_delta', {
    delta: { stop_reason: 'end_turn', stop_sequence: null },
    usage: { output_tokens: 38 },
  }),
  event('message_stop', {}),
];

/**
 * The judge's answer to the evaluation scenario (bench-scenarios.ts): a forced `submit_answers`
 * tool call with one valid answer per question slot, in question order.
 */
export const EVALUATION_JSON = JSON.stringify({
  id: 'msg_01BenchBenchBenchBench0002',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-5-20250929',
  content: [
    {
      type: 'tool_use',
      id: 'toolu_01BenchBenchBenchBench01',
      name: 'submit_answers',
      input: {
        q0: { value: true, reason: 'Freight yards do sort railcars.' },
        q1: { value: 'neutral', reason: 'Plain statement.' },
        q2: { value: 2, reason: 'One sentence.' },
      },
    },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: {
    input_tokens: 512,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 64,
    service_tier: 'standard',
  },
});
