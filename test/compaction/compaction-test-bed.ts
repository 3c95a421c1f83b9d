import type { AddressInfo } from 'node:net';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

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

export interface CompactionTestBed {
  fake: FakeUpstream;
  gateway: TestGateway;
  /** The listening gateway's origin, without `/v1`. */
  origin: string;
  close(): Promise<void>;
}

export async function startCompactionTestBed(): Promise<CompactionTestBed> {
  const fake = await startFakeUpstream();
  const pricing = { ...prices, cacheRead: 0.3, cacheWrite5m: 3.75, cacheWrite1h: 6 };
  const gateway = await startTestGateway({
    providers: {
      anthropic: { kind: 'anthropic', baseUrl: fake.url },
      chat: { kind: 'openai-chat', baseUrl: fake.url },
      responses: { kind: 'openai-responses', baseUrl: fake.url },
      openai: { kind: 'openai-responses', baseUrl: fake.url, forwardCompaction: true },
    },
    models: [
      testModel(compactionModels.anthropic, 'anthropic', { pricing }),
      testModel(compactionModels.chat, 'chat', { pricing }),
      testModel(compactionModels.responses, 'responses', { pricing }),
      testModel(compactionModels.forwarding, 'openai', { pricing }),
    ],
  });
  await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = gateway.app.server.address() as AddressInfo;
  return {
    fake,
    gateway,
    origin: `http://127.0.0.1:${port}`,
    async close() {
      await gateway.close();
      await fake.close();
    },
  };
}

/** Micro-credits for a usage at the configured prices. */
export function expectedCost(inputTokens: number, outputTokens: number): number {
  return inputTokens * prices.input + outputTokens * prices.output;
}
