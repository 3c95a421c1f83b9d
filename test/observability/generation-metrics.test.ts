import { beforeAll, describe, expect, it } from 'vitest';

import type { UsageRecord } from '../../src/generation/usage-store.ts';
import type { FakeUsage } from '../fake-upstream/fake-upstream-server.ts';
import { completionLine, testModel } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';
import { readMetrics, sumOf, type MetricSample } from './read-metrics.ts';

const paths = {
  messages: '/v1/messages',
  chat: '/v1/chat/completions',
  responses: '/v1/responses',
} as const;
type Surface = keyof typeof paths;

function bodyFor(surface: Surface, model: string, stream: boolean): Record<string, unknown> {
  const text = `metrics ${Math.random()}`;
  if (surface === 'messages')
    return { model, max_tokens: 64, stream, messages: [{ role: 'user', content: text }] };
  if (surface === 'chat') return { model, stream, messages: [{ role: 'user', content: text }] };
  return { model, stream, input: text };
}

const tokens = 'gen_ai_client_token_usage_sum';
const durations = 'gen_ai_client_operation_duration_seconds_count';

/**
 * Every finished generation is on GET /metrics under the GenAI semantic conventions' names and
 * the gateway's own, labelled by the model asked for, the model that answered and the provider
 * family, with token sums equal to the usage records; its completion line names the caller, the
 * deployment, the attempts and the time to the first byte.
 */
describe('generation metrics and the completion line', () => {
  const bed = useUpstreamTestBed({
    providers: {
      anthropic: { kind: 'anthropic' },
      chat: { kind: 'openai-chat' },
      responses: { kind: 'openai-responses' },
    },
    models: [
      testModel('m-anthropic', 'anthropic'),
      testModel('m-chat', 'chat'),
      testModel('m-responses', 'responses'),
      testModel('m-primary', 'anthropic', { fallbacks: ['m-backup'] }),
      testModel('m-backup', 'chat'),
      testModel('m-failing', 'responses'),
    ],
    config: { routing: { backoffMs: 0 } },
  });
  let caller: { token: string; accountId: string; apiKeyId: string };
  beforeAll(async () => {
    caller = await bed.gateway.createToken({ credits: 1_000_000_000 });
  });

  const send = async (
    surface: Surface,
    model: string,
    options: { stream?: boolean; usage?: FakeUsage } = {},
  ) => {
    bed.fake.enqueue({ output: [{ text: 'counted' }], usage: options.usage ?? {} });
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: paths[surface],
      headers: { authorization: `Bearer ${caller.token}` },
      payload: bodyFor(surface, model, options.stream ?? false),
    });
    // A stream's body has been read whole: its billing has ended.
    expect(response.statusCode, response.body).toBe(200);
    return response;
  };

  /** The caller's usage records once `count` have landed (settlements may trail the answer). */
  const usageRecords = async (count: number): Promise<UsageRecord[]> => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const records = await bed.gateway.store.usage.listUsage(caller.accountId, 1_000);
      if (records.length >= count) return records;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`fewer than ${count} usage records were written`);
  };
  let recordsSoFar = 0;
  const sent = (count: number) => (recordsSoFar += count);

  const seriesOf = (samples: MetricSample[], name: string, labels: Record<string, string>) =>
    samples.filter(
      (sample) =>
        sample.name === name &&
        Object.entries(labels).every(([label, value]) => sample.labels[label] === value),
    );

  it('labels each dialect with its model and provider family, and sums tokens as billed', async () => {
    const usage = { input: 120, cacheRead: 30, cacheWrite5m: 7, output: 40 };
    for (const stream of [false, true]) {
      await send('messages', 'm-anthropic', { stream, usage });
      await send('chat', 'm-chat', { stream, usage: { ...usage, reasoning: 9 } });
      await send('responses', 'm-responses', { stream, usage: { ...usage, reasoning: 11 } });
    }
    // Cross-dialect: a message-style client on a chat upstream, a chat client on Anthropic.
    await send('messages', 'm-chat', { usage: { input: 55, output: 5 } });
    await send('chat', 'm-anthropic', { stream: true, usage: { input: 66, output: 6 } });
    const records = await usageRecords(sent(8));
    const metrics = await readMetrics(bed.gateway);

    const families = { 'm-anthropic': 'anthropic', 'm-chat': 'openai', 'm-responses': 'openai' };
    for (const [model, provider] of Object.entries(families)) {
      const mine = records.filter((record) => record.model === model);
      expect(mine.length).toBeGreaterThan(0);
      const labels = {
        gen_ai_operation_name: 'chat',
        gen_ai_provider_name: provider,
        gen_ai_request_model: model,
        gen_ai_response_model: model,
      };
      const sum = (field: keyof UsageRecord) =>
        mine.reduce((total, record) => total + (record[field] as number), 0);
      expect(sumOf(metrics, tokens, { ...labels, gen_ai_token_type: 'input' })).toBe(
        sum('inputTokens'),
      );
      expect(sumOf(metrics, tokens, { ...labels, gen_ai_token_type: 'output' })).toBe(
        sum('outputTokens'),
      );
      expect(sumOf(metrics, durations, labels)).toBe(mine.length);
      // No other provider family was ever told for this model.
      expect(
        seriesOf(metrics, durations, { gen_ai_response_model: model }).every(
          (sample) => sample.labels.gen_ai_provider_name === provider,
        ),
      ).toBe(true);

      const byType = (type: string) =>
        sumOf(metrics, 'switchyard_generation_tokens_total', { model, type });
      expect(byType('cache_read')).toBe(sum('inputCacheReadTokens'));
      expect(byType('cache_write_5m')).toBe(sum('inputCacheWrite5mTokens'));
      expect(byType('cache_write_1h')).toBe(sum('inputCacheWrite1hTokens'));
      expect(byType('input_no_cache')).toBe(
        sum('inputTokens') -
          sum('inputCacheReadTokens') -
          sum('inputCacheWrite5mTokens') -
          sum('inputCacheWrite1hTokens'),
      );
      expect(byType('output')).toBe(sum('outputTokens'));
      expect(byType('reasoning')).toBe(sum('reasoningTokens'));
      expect(sumOf(metrics, 'switchyard_cost_microcredits_total', { model })).toBe(sum('cost'));
      expect(sum('cost')).toBeGreaterThan(0);
    }
    // The reasoning the OpenAI upstreams reported is counted; Anthropic reports none apart.
    expect(
      sumOf(metrics, 'switchyard_generation_tokens_total', { model: 'm-chat', type: 'reasoning' }),
    ).toBe(18);
    // Each streamed call has its time to the first byte.
    for (const model of Object.keys(families)) {
      expect(
        sumOf(metrics, 'gen_ai_server_time_to_first_token_seconds_count', {
          gen_ai_response_model: model,
        }),
      ).toBe(model === 'm-anthropic' ? 2 : 1);
    }
    expect(
      sumOf(metrics, 'switchyard_upstream_attempts_total', {
        provider: 'chat',
        deployment: 'chat/m-chat-upstream',
        outcome: 'ok',
      }),
    ).toBe(3);
  });

  it('labels a fallback with the model that answered, and counts the failed attempt', async () => {
    bed.fake.reset();
    bed.fake.enqueue({ status: 500 });
    const response = await send('messages', 'm-primary', { usage: { input: 10, output: 3 } });
    expect(response.headers['x-switchyard-model']).toBe('m-backup');
    const [record] = await usageRecords(sent(1));
    expect(record).toMatchObject({ model: 'm-backup', inputTokens: 10, outputTokens: 3 });
    const metrics = await readMetrics(bed.gateway);

    const labels = {
      gen_ai_operation_name: 'chat',
      gen_ai_provider_name: 'openai',
      gen_ai_request_model: 'm-primary',
      gen_ai_response_model: 'm-backup',
    };
    expect(seriesOf(metrics, durations, labels)).toEqual([
      { name: durations, labels: { ...labels }, value: 1 },
    ]);
    expect(sumOf(metrics, tokens, { ...labels, gen_ai_token_type: 'input' })).toBe(10);
    expect(sumOf(metrics, tokens, { gen_ai_response_model: 'm-primary' })).toBe(0);
    expect(sumOf(metrics, 'switchyard_cost_microcredits_total', { model: 'm-backup' })).toBe(
      record?.cost,
    );
    expect(
      sumOf(metrics, 'switchyard_upstream_attempts_total', {
        deployment: 'anthropic/m-primary-upstream',
        outcome: 'server',
      }),
    ).toBe(1);
    expect(
      sumOf(metrics, 'switchyard_upstream_attempts_total', {
        deployment: 'chat/m-backup-upstream',
        outcome: 'ok',
      }),
    ).toBe(1);

    const line = completionLine(bed.gateway, response.headers['request-id']);
    expect(line).toMatchObject({
      model: 'm-backup',
      accountId: caller.accountId,
      tokenId: caller.apiKeyId,
      deployment: 'chat/m-backup-upstream',
      attempts: 2,
      inputTokens: 10,
      outputTokens: 3,
    });
    expect(JSON.stringify(line)).not.toContain(caller.token);
  });

  it('marks a failed call with its error type and counts no tokens for it', async () => {
    bed.fake.reset();
    bed.fake.enqueue({ status: 500 });
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: paths.responses,
      headers: { authorization: `Bearer ${caller.token}` },
      payload: bodyFor('responses', 'm-failing', false),
    });
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    await usageRecords(sent(1));
    const metrics = await readMetrics(bed.gateway);
    expect(seriesOf(metrics, durations, { gen_ai_response_model: 'm-failing' })).toEqual([
      {
        name: durations,
        labels: {
          gen_ai_operation_name: 'chat',
          gen_ai_provider_name: 'openai',
          gen_ai_request_model: 'm-failing',
          gen_ai_response_model: 'm-failing',
          error_type: 'server',
        },
        value: 1,
      },
    ]);
    expect(seriesOf(metrics, tokens, { gen_ai_response_model: 'm-failing' })).toEqual([]);
    expect(
      seriesOf(metrics, 'gen_ai_server_time_to_first_token_seconds_count', {
        gen_ai_response_model: 'm-failing',
      }),
    ).toEqual([]);
    expect(
      sumOf(metrics, 'switchyard_upstream_attempts_total', {
        deployment: 'responses/m-failing-upstream',
        outcome: 'server',
      }),
    ).toBe(1);
    expect(completionLine(bed.gateway, response.headers['request-id'])).toMatchObject({
      model: 'm-failing',
      outcome: 'upstream_error',
      deployment: 'responses/m-failing-upstream',
      attempts: 1,
      costMicroCredits: 0,
    });
  });

  it('leaves a refused call out of the GenAI series; its line still names the caller', async () => {
    const broke = await bed.gateway.createToken({ credits: 0 });
    const before = sumOf(await readMetrics(bed.gateway), durations, {
      gen_ai_request_model: 'm-anthropic',
    });
    const response = await bed.gateway.app.inject({
      method: 'POST',
      url: paths.messages,
      headers: { authorization: `Bearer ${broke.token}` },
      payload: bodyFor('messages', 'm-anthropic', false),
    });
    expect(response.statusCode).toBe(402);
    const metrics = await readMetrics(bed.gateway);
    expect(sumOf(metrics, durations, { gen_ai_request_model: 'm-anthropic' })).toBe(before);
    const line = completionLine(bed.gateway, response.headers['request-id']);
    expect(line).toMatchObject({
      outcome: 'refused',
      accountId: broke.accountId,
      tokenId: broke.apiKeyId,
      attempts: 0,
    });
    expect(line).not.toHaveProperty('deployment');
  });

  it('gives a streamed call its time to the first byte on the completion line', async () => {
    bed.fake.reset();
    const response = await send('chat', 'm-chat', { stream: true, usage: { input: 5 } });
    await usageRecords(sent(1));
    const line = completionLine(bed.gateway, response.headers['request-id']);
    expect(line).toMatchObject({
      model: 'm-chat',
      tokenId: caller.apiKeyId,
      deployment: 'chat/m-chat-upstream',
      attempts: 1,
    });
    expect(line?.ttfbMs).toEqual(expect.any(Number));
    expect(line?.ttfbMs as number).toBeGreaterThanOrEqual(0);
    expect(line?.ttfbMs as number).toBeLessThanOrEqual(line?.responseTime as number);
  });
});
