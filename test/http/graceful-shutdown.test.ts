import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { startTestGateway, testModel } from '../support/test-gateway.ts';

describe('graceful shutdown', () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
  });
  afterAll(async () => upstream.close());

  it('lets an in-flight stream finish while refusing new connections', async () => {
    const gateway = await startTestGateway({
      providers: { anthropic: { kind: 'anthropic', baseUrl: upstream.url } },
      models: [testModel('claude', 'anthropic')],
    });
    const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const { token } = await gateway.createToken({ credits: 10_000_000 });
    upstream.enqueue({ output: [{ text: 'a slow but complete answer' }], chunkDelayMs: 30 });
    const response = await request(`${address}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': token, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude',
        max_tokens: 50,
        stream: true,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(response.statusCode).toBe(200);
    const closing = gateway.close();
    const text = await response.body.text();
    await closing;
    expect(text).toContain('event: message_stop');
    await expect(request(`${address}/healthz`)).rejects.toThrow();
  });
});
