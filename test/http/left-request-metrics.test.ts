import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import {
  startTestGateway,
  streamMessage,
  testModel,
  type TestGateway,
} from '../support/test-gateway.ts';

/**
 * Fastify counts a request in its onResponse hook, which runs only for a response that finished;
 * a generation whose client left mid-answer is counted too, under 499.
 */
describe('request metrics of a client that leaves mid-answer', () => {
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let address: string;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestGateway({
      providers: { anthropic: { kind: 'anthropic', baseUrl: upstream.url } },
      models: [testModel('claude', 'anthropic')],
    });
    address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });

  const count = async (status: string) => {
    const metrics = await gateway.app.inject({ method: 'GET', url: '/metrics' });
    const line = new RegExp(
      `switchyard_http_requests_total\\{method="POST",route="/v1/messages",status="${status}"\\} (\\d+)`,
    ).exec(metrics.body);
    return Number(line?.[1] ?? 0);
  };

  it('counts it once, under 499, and a finished one under its status', async () => {
    const { token } = await gateway.createToken({ credits: 10_000_000 });
    const send = (signal?: AbortSignal) =>
      streamMessage(address, token, {
        model: 'claude',
        maxTokens: 500,
        ...(signal !== undefined ? { signal } : {}),
      });

    upstream.enqueue({ output: [{ text: 'once upon a time '.repeat(40) }], chunkDelayMs: 20 });
    const controller = new AbortController();
    const left = await send(controller.signal);
    try {
      for await (const chunk of left.body) {
        if (String(chunk).includes('text_delta')) controller.abort();
      }
    } catch {
      // The abort ends the read.
    }
    for (let attempt = 0; attempt < 50 && (await count('499')) === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await count('499')).toBe(1);
    expect(await count('200')).toBe(0);

    upstream.enqueue({ output: [{ text: 'a whole answer' }] });
    const finished = await send();
    await finished.body.text();
    expect(await count('200')).toBe(1);
    expect(await count('499')).toBe(1);
  });
});
