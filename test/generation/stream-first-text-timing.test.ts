import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { testModel, upstreamKinds } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

type Dialect = 'anthropic' | 'chat' | 'responses';

/** About twenty deltas, 40 ms apart: an answer that takes the upstream some 0.8 s to write. */
const answer =
  'Streams should arrive as they are written, one small piece after another, never held back until the answer ends.';
const chunkDelayMs = 40;

/** Where each dialect's text deltas are, read the way its clients read them. */
function carriesText(dialect: Dialect, data: string): boolean {
  if (dialect === 'anthropic') return data.includes('"text_delta"');
  if (dialect === 'responses') return data.includes('"response.output_text.delta"');
  return /"content":"[^"]/.test(data);
}

interface Timing {
  firstByte: number;
  firstText: number;
  lastText: number;
  text: string;
}

/** Milliseconds from sending the request to the first byte, the first and the last text delta. */
async function timeStream(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  dialect: Dialect,
): Promise<Timing> {
  const began = performance.now();
  const response = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.statusCode).toBe(200);
  let firstByte: number | undefined;
  let firstText: number | undefined;
  let lastText = 0;
  let pending = '';
  let text = '';
  for await (const chunk of response.body) {
    const now = performance.now() - began;
    firstByte ??= now;
    pending += (chunk as Buffer).toString('utf8');
    const frames = pending.split('\n\n');
    pending = frames.pop() ?? '';
    for (const frame of frames) {
      const data = frame
        .split('\n')
        .find((line) => line.startsWith('data: '))
        ?.slice(6);
      if (data === undefined || !carriesText(dialect, data)) continue;
      firstText ??= now;
      lastText = now;
      text += '.';
    }
  }
  return { firstByte: firstByte ?? Infinity, firstText: firstText ?? Infinity, lastText, text };
}

/**
 * docs/decisions/0003: a message-style stream follows its upstream on every route. The upstream's
 * own time to first text is measured by asking the fake directly in its dialect; through the
 * gateway the first byte and the first text delta must follow it within a few milliseconds, and the
 * answer must arrive spread out as written, not at once at the end.
 */
describe('time to first text of /v1/messages streams, per upstream dialect', () => {
  const bed = useUpstreamTestBed({
    providers: {
      anthropic: { kind: upstreamKinds.anthropic },
      chat: { kind: upstreamKinds.chat },
      responses: { kind: upstreamKinds.responses },
    },
    models: [
      testModel('timed-anthropic', 'anthropic'),
      // An OpenAI family name: the prompt is counted with o200k_base before the first text.
      testModel('timed-chat', 'chat', {
        deployments: [{ provider: 'chat', upstreamModel: 'gpt-4.1-mini' }],
      }),
      testModel('timed-responses', 'responses'),
    ],
    listen: true,
    credits: 100_000_000,
  });

  const prompt = 'Tell me about streams.';
  const direct: Record<Dialect, { path: string; body: Record<string, unknown> }> = {
    anthropic: {
      path: '/v1/messages',
      body: {
        model: 'm',
        max_tokens: 100,
        stream: true,
        messages: [{ role: 'user', content: prompt }],
      },
    },
    chat: {
      path: '/v1/chat/completions',
      body: { model: 'm', stream: true, messages: [{ role: 'user', content: prompt }] },
    },
    responses: { path: '/v1/responses', body: { model: 'm', stream: true, input: prompt } },
  };

  it.each<Dialect>(['anthropic', 'chat', 'responses'])(
    'follows an %s upstream',
    { timeout: 20_000 },
    async (dialect) => {
      const reply = { output: [{ text: answer }], usage: { input: 40, output: 30 }, chunkDelayMs };
      // Warm both paths (connections, tokenizer tables) in a first round; on a shared machine
      // one round can stall, so the lag is the smaller of the two measured rounds.
      const lags: number[] = [];
      for (let round = 0; round < 3; round += 1) {
        bed.fake.enqueue(reply, reply);
        const upstreamTiming = await timeStream(
          `${bed.fake.url}${direct[dialect].path}`,
          {},
          direct[dialect].body,
          dialect,
        );
        const gatewayTiming = await timeStream(
          `${bed.origin}/v1/messages`,
          { 'x-api-key': bed.token },
          {
            model: `timed-${dialect}`,
            max_tokens: 100,
            stream: true,
            messages: [{ role: 'user', content: prompt }],
          },
          'anthropic',
        );
        expect(gatewayTiming.text.length).toBe(upstreamTiming.text.length);
        // A held stream would start after the upstream's last delta, some 0.8 s in.
        expect(upstreamTiming.lastText - upstreamTiming.firstText).toBeGreaterThan(500);
        expect(gatewayTiming.lastText - gatewayTiming.firstText).toBeGreaterThan(500);
        expect(gatewayTiming.firstByte).toBeLessThanOrEqual(gatewayTiming.firstText);
        if (round > 0) lags.push(gatewayTiming.firstText - upstreamTiming.firstText);
      }
      expect(Math.min(...lags)).toBeLessThan(25);
    },
  );
});
