import { startUpstreamTestBed, testModel, type UpstreamTestBed } from '../support/test-gateway.ts';

/** One model per way of compacting: the gateway itself over three dialects, or the upstream. */
export const compactionModels = {
  anthropic: 'compact-via-anthropic',
  chat: 'compact-via-chat',
  /** A responses server without `/v1/responses/compact`: the gateway compacts. */
  responses: 'compact-via-responses',
  /** A responses server with it (`forwardCompaction: true`): the upstream compacts. */
  forwarding: 'compact-via-openai',
} as const;

/** Configured prices (credits per million tokens), so tests can work out a charge. */
export const prices = { input: 3, output: 15 };

export const shellTool = {
  type: 'function',
  name: 'shell',
  description: 'Runs a command',
  parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
};

/** A Codex-like history: a tool round trip between two user requests. */
export const conversation = [
  { role: 'user', content: 'Rename the function parse to parseCsv.' },
  {
    type: 'function_call',
    id: 'fc_grep',
    call_id: 'call_grep',
    name: 'shell',
    arguments: '{"cmd":"grep -rn parse src"}',
  },
  {
    type: 'function_call_output',
    call_id: 'call_grep',
    output: 'src/csv.ts:3: export function parse(',
  },
  { role: 'assistant', content: [{ type: 'output_text', text: 'Renamed it in src/csv.ts.' }] },
  { role: 'user', content: [{ type: 'input_text', text: 'Now add a test for it.' }] },
];

export const summaryText = 'SUMMARY: parse was renamed to parseCsv in src/csv.ts; a test is next.';

export type CompactionTestBed = UpstreamTestBed;

export function startCompactionTestBed(): Promise<CompactionTestBed> {
  const pricing = { ...prices, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6 };
  return startUpstreamTestBed({
    providers: {
      anthropic: { kind: 'anthropic' },
      chat: { kind: 'openai-chat' },
      responses: { kind: 'openai-responses' },
      openai: { kind: 'openai-responses', forwardCompaction: true },
    },
    models: [
      testModel(compactionModels.anthropic, 'anthropic', { pricing }),
      testModel(compactionModels.chat, 'chat', { pricing }),
      testModel(compactionModels.responses, 'responses', { pricing }),
      testModel(compactionModels.forwarding, 'openai', { pricing }),
    ],
    listen: true,
  });
}

/** Micro-credits for a usage at the configured prices. */
export function expectedCost(inputTokens: number, outputTokens: number): number {
  return inputTokens * prices.input + outputTokens * prices.output;
}
