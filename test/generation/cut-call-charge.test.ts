import { request } from 'undici';
import { beforeEach, describe, expect, it } from 'vitest';

import type { FakeSuccessReply } from '../fake-upstream/fake-upstream-server.ts';
import { settledUsageRecord, testModel } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

/**
 * docs/decisions/0102: a call whose client leaves mid-stream is never charged more than the same
 * call completed. Its prompt is charged at the upstream's count where it gave one (Anthropic's
 * message_start) and otherwise at the local count, never at the hold's bound; its output at what
 * was delivered.
 */

/** 400 tokens of text under OpenAI's o200k tokenizer (" hello" is one), 2 400 bytes. */
const prompt = ' hello'.repeat(400);
/** What the upstreams report for it: OpenAI's chat framing adds 7, Anthropic counts its own way. */
const reportedInput = { anthropic: 420, chat: 407, responses: 407 } as const;
const answer = 'Once upon a time, the end.';

const surfaces = {
  messages: {
    url: '/v1/messages',
    body: (model: string) => ({
      model,
      max_tokens: 1_000,
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    }),
  },
  chat: {
    url: '/v1/chat/completions',
    body: (model: string) => ({
      model,
      max_tokens: 1_000,
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    }),
  },
  responses: {
    url: '/v1/responses',
    body: (model: string) => ({ model, max_output_tokens: 1_000, stream: true, input: prompt }),
  },
} as const;

const providers = ['anthropic', 'chat', 'responses'] as const;

describe('the charge of a call cut short (docs/decisions/0102)', () => {
  const bed = useUpstreamTestBed({
    providers: {
      anthropic: { kind: 'anthropic' },
      chat: { kind: 'openai-chat' },
      responses: { kind: 'openai-responses' },
    },
    // gpt-4o: the OpenAI-style deployments count prompts with the o200k tokenizer.
    models: providers.map((provider) =>
      testModel(`via-${provider}`, provider, {
        deployments: [
          { provider, upstreamModel: provider === 'anthropic' ? 'claude-upstream' : 'gpt-4o' },
        ],
      }),
    ),
    listen: true,
  });
  beforeEach(() => bed.fake.reset());

  /** Streams the call; with `cut`, leaves after the first text the client receives. */
  async function charge(url: string, body: object, reply: FakeSuccessReply, cut: boolean) {
    const { token, accountId } = await bed.gateway.createToken({ credits: 10_000_000 });
    bed.fake.enqueue(reply);
    // A message-style stream asks an upstream that counts for the prompt's size beside the call
    // (docs/decisions/0003): it counts as it bills.
    bed.fake.enqueueTokenCount({ inputTokens: reply.usage?.input ?? 0 });
    const controller = new AbortController();
    const response = await request(`${bed.origin}${url}`, {
      method: 'POST',
      headers: { 'x-api-key': token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    let received = '';
    try {
      for await (const chunk of response.body) {
        received += String(chunk);
        if (cut && /Onc|Once/.test(received)) controller.abort();
      }
    } catch {
      // The abort ends the read.
    }
    return settledUsageRecord(bed.gateway, accountId);
  }

  for (const [surfaceName, surface] of Object.entries(surfaces)) {
    for (const provider of providers) {
      it(`${surfaceName} → ${provider}: costs no more cut than completed`, async () => {
        const reply: FakeSuccessReply = {
          output: [{ text: answer }],
          usage: { input: reportedInput[provider] },
          chunkDelayMs: 40,
        };
        const model = `via-${provider}`;
        const completed = await charge(surface.url, surface.body(model), reply, false);
        expect(completed.outcome).toBe('ok');
        const cut = await charge(surface.url, surface.body(model), reply, true);
        expect(cut.outcome).toBe('cancelled');
        expect(cut.cost).toBeGreaterThan(0);
        expect(cut.inputTokens).toBeLessThanOrEqual(completed.inputTokens);
        expect(cut.outputTokens).toBeLessThanOrEqual(completed.outputTokens);
        expect(cut.cost).toBeLessThanOrEqual(completed.cost);
      });
    }
  }
});
