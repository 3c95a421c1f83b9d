import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shutDown } from '../../src/composition/shut-down.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import {
  completionLine,
  startTestGateway,
  streamMessage,
  testModel,
} from '../support/test-gateway.ts';

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
    const response = await streamMessage(address, token, { model: 'claude', maxTokens: 50 });
    expect(response.statusCode).toBe(200);
    const closing = gateway.close();
    const text = await response.body.text();
    await closing;
    expect(text).toContain('event: message_stop');
    await expect(request(`${address}/healthz`)).rejects.toThrow();
  });

  it('past the grace, cuts a stream still open and closes once what it delivered is charged', async () => {
    // The store is opened here and its settlements slowed, so the test can read it once the
    // gateway has closed and tell whether closing waited for the cut call's settlement.
    const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-grace-'));
    const store = await openSqliteStore({ path: path.join(folder, 'switchyard.sqlite') });
    const ledger = store.ledger;
    const slowLedger = new Proxy(ledger, {
      get(target, key) {
        if (key === 'settle') {
          return async (settlement: Parameters<typeof ledger.settle>[0]) => {
            await new Promise((resolve) => setTimeout(resolve, 300));
            return target.settle(settlement);
          };
        }
        const value: unknown = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    try {
      const gateway = await startTestGateway(
        {
          providers: { anthropic: { kind: 'anthropic', baseUrl: upstream.url } },
          models: [testModel('claude', 'anthropic')],
        },
        { store: { ...store, ledger: slowLedger } },
      );
      const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      const credits = 10_000_000;
      const { token, accountId } = await gateway.createToken({ credits });
      // 80 deltas 50 ms apart: four seconds of answer, far past the grace.
      upstream.enqueue({
        output: [{ text: 'once upon a time '.repeat(20) }],
        usage: { input: 40, output: 400 },
        chunkDelayMs: 50,
      });
      const response = await streamMessage(address, token, { model: 'claude', maxTokens: 1000 });
      expect(response.statusCode).toBe(200);
      let received = '';
      let closing: Promise<number> | undefined;
      try {
        for await (const chunk of response.body) {
          received += String(chunk);
          closing ??= received.includes('text_delta')
            ? shutDown(gateway, { graceMs: 300 })
            : undefined;
        }
      } catch {
        // The gateway cut the connection.
      }
      expect(await closing).toBe(1);
      expect(received).toContain('text_delta');
      expect(received).not.toContain('message_stop');
      expect(completionLine(gateway, response.headers['request-id'])).toMatchObject({
        outcome: 'cancelled',
        aborted: true,
      });

      // Settled by the time the gateway closed: a record of the cut call, charged for its
      // delivered part, and no hold left open.
      const [record] = await store.usage.listUsage(accountId, 1);
      expect(record).toMatchObject({ outcome: 'cancelled', shortfall: 0 });
      expect(record?.outputTokens).toBeGreaterThan(0);
      expect(record?.outputTokens).toBeLessThan(400);
      expect(record?.cost).toBeGreaterThan(0);
      expect(await store.ledger.getBalance(accountId)).toEqual({
        balance: credits - (record?.cost ?? 0),
        held: 0,
        available: credits - (record?.cost ?? 0),
      });
    } finally {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe('a request that arrives while the gateway closes', () => {
  it('is answered 503 not_ready with retry-after in the route shape, not the framework shape', async () => {
    const upstream = await startFakeUpstream();
    const gateway = await startTestGateway({
      providers: { chat: { kind: 'openai-chat', baseUrl: upstream.url } },
      models: [testModel('gpt', 'chat')],
    });
    try {
      const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      const { token } = await gateway.createToken({ credits: 10_000_000 });
      upstream.enqueue({ output: [{ text: 'slow' }], delayMs: 400 });
      const socket = connect(Number(new URL(address).port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      let received = '';
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      const body = JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${token}\r\n` +
          `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      // The connection is busy with the first call, so closing keeps it; the next request on it
      // arrives after close() began, its body still on the way (or Node would count the
      // connection idle and close it).
      const closing = gateway.app.close();
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.write(
        'POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n' +
          'content-length: 100\r\n\r\n{',
      );
      await new Promise((resolve) => socket.once('close', resolve));
      await closing;
      const answers = received.split(/(?=HTTP\/1\.1 )/);
      expect(answers[0]).toMatch(/^HTTP\/1\.1 200 /);
      expect(answers[1]).toMatch(/^HTTP\/1\.1 503 /);
      expect(answers[1]?.toLowerCase()).toContain('retry-after: 1');
      const json = JSON.parse(answers[1]?.slice(answers[1].indexOf('\r\n\r\n') + 4) ?? '');
      expect(json).toEqual({
        error: {
          type: 'overloaded_error',
          code: 'not_ready',
          message: 'The gateway is shutting down; retry with a delay.',
        },
      });
    } finally {
      await gateway.close();
      await upstream.close();
    }
  });
});
