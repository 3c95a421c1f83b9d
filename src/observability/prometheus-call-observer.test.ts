import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';

import { usageFromParts } from '../canonical/usage.ts';
import type { ObservedAttempt, ObservedCall } from './call-observer.ts';
import { createPrometheusCallObserver } from './prometheus-call-observer.ts';

const answered: ObservedAttempt = {
  target: 'chat/gpt-test#k1',
  provider: 'chat',
  providerKind: 'openai-chat',
  deployment: 'chat/gpt-test',
  keyId: 'k1',
  startedAt: 1_000,
  endedAt: 1_100,
  status: 200,
};

function call(overrides: Partial<ObservedCall> = {}): ObservedCall {
  return {
    requestId: 'req_1',
    surface: 'chat',
    stream: false,
    requestedModel: 'm-chat',
    model: 'm-chat',
    accountId: 'acct_1',
    apiKeyId: 'key_1',
    status: 200,
    outcome: 'ok',
    usage: usageFromParts({ noCache: 10, cacheRead: 2, output: 5, reasoning: 1 }),
    costMicroCredits: 70,
    startedAt: 1_000,
    endedAt: 1_500,
    firstByteAt: undefined,
    attempts: [answered],
    ...overrides,
  };
}

interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

async function samples(registry: Registry, name: string): Promise<Sample[]> {
  const metric = (await registry.getMetricsAsJSON()).find((entry) => entry.name === name);
  return (metric?.values ?? []) as Sample[];
}

async function valueOf(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
  sample = name,
): Promise<number | undefined> {
  return (await samples(registry, name)).find(
    (candidate) =>
      (candidate.metricName ?? name) === sample &&
      Object.entries(labels).every(([label, value]) => candidate.labels[label] === value),
  )?.value;
}

const operation = {
  gen_ai_operation_name: 'chat',
  gen_ai_provider_name: 'openai',
  gen_ai_request_model: 'm-chat',
  gen_ai_response_model: 'm-chat',
};

describe('the Prometheus call observer', () => {
  it('adds every call to the series of its model, operation and target', async () => {
    const registry = new Registry();
    const observer = createPrometheusCallObserver(registry);
    observer.observe(call());
    observer.observe(call({ stream: true, firstByteAt: 1_200 }));

    const tokens = 'switchyard_generation_tokens_total';
    expect(await valueOf(registry, tokens, { model: 'm-chat', type: 'input_no_cache' })).toBe(20);
    expect(await valueOf(registry, tokens, { model: 'm-chat', type: 'cache_read' })).toBe(4);
    expect(await valueOf(registry, tokens, { model: 'm-chat', type: 'output' })).toBe(10);
    expect(await valueOf(registry, tokens, { model: 'm-chat', type: 'reasoning' })).toBe(2);
    expect(await valueOf(registry, 'switchyard_cost_microcredits_total', {})).toBe(140);
    expect(
      await valueOf(registry, 'switchyard_upstream_attempts_total', {
        provider: 'chat',
        deployment: 'chat/gpt-test',
        key: 'k1',
        outcome: 'ok',
      }),
    ).toBe(2);
    const duration = 'gen_ai_client_operation_duration_seconds';
    expect(await valueOf(registry, duration, operation, `${duration}_count`)).toBe(2);
    expect(await valueOf(registry, duration, operation, `${duration}_sum`)).toBe(1);
    const usage = 'gen_ai_client_token_usage';
    expect(
      await valueOf(registry, usage, { ...operation, gen_ai_token_type: 'input' }, `${usage}_sum`),
    ).toBe(24);
    // Only the stream had a first byte before its end.
    const firstToken = 'gen_ai_server_time_to_first_token_seconds';
    expect(await valueOf(registry, firstToken, operation, `${firstToken}_count`)).toBe(1);
    expect(await valueOf(registry, firstToken, operation, `${firstToken}_sum`)).toBe(0.2);
  });

  it('labels a failed call with its error and its attempts with their failure class', async () => {
    const registry = new Registry();
    const observer = createPrometheusCallObserver(registry);
    observer.observe(call());
    observer.observe(
      call({
        status: 502,
        outcome: 'upstream_error',
        usage: undefined,
        costMicroCredits: 0,
        attempts: [{ ...answered, status: 500, failure: 'server' }],
      }),
    );
    const attempts = 'switchyard_upstream_attempts_total';
    expect(await valueOf(registry, attempts, { key: 'k1', outcome: 'ok' })).toBe(1);
    expect(await valueOf(registry, attempts, { key: 'k1', outcome: 'server' })).toBe(1);
    const duration = 'gen_ai_client_operation_duration_seconds';
    const counts = (await samples(registry, duration)).filter(
      (sample) => sample.metricName === `${duration}_count`,
    );
    expect(counts.map((sample) => [sample.labels.error_type, sample.value])).toEqual([
      [undefined, 1],
      ['server', 1],
    ]);
  });

  it('starts its series again after the registry is reset', async () => {
    const registry = new Registry();
    const observer = createPrometheusCallObserver(registry);
    observer.observe(call());
    registry.resetMetrics();
    expect(await samples(registry, 'switchyard_generation_tokens_total')).toEqual([]);

    observer.observe(call({ costMicroCredits: 30 }));
    expect(await valueOf(registry, 'switchyard_cost_microcredits_total', {})).toBe(30);
    expect(await valueOf(registry, 'switchyard_upstream_attempts_total', { outcome: 'ok' })).toBe(
      1,
    );
    const duration = 'gen_ai_client_operation_duration_seconds';
    expect(await valueOf(registry, duration, operation, `${duration}_count`)).toBe(1);
  });
});
