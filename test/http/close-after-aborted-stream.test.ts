import { mkdtemp, rm } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorService } from '../../src/operator/operator-service.ts';
import { openSqliteStore } from '../../src/store/sqlite/open-sqlite-store.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { grantFundedToken } from '../support/grant-funded-token.ts';
import { spawnGatewayChild } from '../support/spawn-gateway-child.ts';
import { startTestGateway, testModel } from '../support/test-gateway.ts';

/**
 * A client that aborts a stream mid-answer on a keep-alive connection: undici then opens a new
 * connection it sends nothing on, and keeps it for its keep-alive timeout (70 s against the
 * gateway). Closing the gateway must not wait for it (docs/decisions/0130), nor must a stop.
 */

const answer = 'Once upon a time, the end.';
/** Well under undici's 70 s, and well over what a close that does not wait needs. */
const closeBoundMs = 5_000;

const routes = [
  { url: '/v1/messages', provider: 'anthropic', kind: 'anthropic' },
  { url: '/v1/chat/completions', provider: 'chat', kind: 'openai-chat' },
] as const;

/** Resolves with 'done' if `promise` settles within `ms`, else with 'still waiting'. */
async function within(promise: Promise<unknown>, ms: number): Promise<'done' | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    promise.then(() => 'done' as const),
    new Promise<'still waiting'>((resolve) => {
      timer = setTimeout(() => resolve('still waiting'), ms);
    }),
  ]);
  clearTimeout(timer);
  return outcome;
}

/** Polls until `condition` holds or `ms` have passed. */
async function waitFor(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** One streamed call on `client`; with `abort`, leaves after the first text it receives. */
async function streamOnce(
  client: Client,
  url: string,
  token: string,
  abort: boolean,
): Promise<string> {
  const controller = new AbortController();
  const response = await client.request({
    path: url,
    method: 'POST',
    headers: { 'x-api-key': token, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'model',
      max_tokens: 100,
      stream: true,
      messages: [{ role: 'user', content: 'tell me a story' }],
    }),
    signal: controller.signal,
  });
  let received = '';
  try {
    for await (const chunk of response.body) {
      received += String(chunk);
      if (abort && received.includes('Onc')) controller.abort();
    }
  } catch {
    // The abort ends the read.
  }
  return received;
}

describe('closing after a client aborted a stream on a kept-alive connection', () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
  });
  afterAll(async () => upstream.close());

  for (const route of routes) {
    it(`${route.url}: closes at once after a completed and an aborted stream on one connection`, async () => {
      const gateway = await startTestGateway({
        providers: { [route.provider]: { kind: route.kind, baseUrl: upstream.url } },
        models: [testModel('model', route.provider)],
      });
      const origin = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      const { token } = await gateway.createToken({ credits: 10_000_000 });
      let connections = 0;
      gateway.app.server.on('connection', () => (connections += 1));
      // One connection, reused by the second call.
      const client = new Client(origin, { pipelining: 1 });
      upstream.enqueue(
        { output: [{ text: answer }] },
        { output: [{ text: answer }], chunkDelayMs: 40 },
      );
      let closing: Promise<void> | undefined;
      try {
        const completed = await streamOnce(client, route.url, token, false);
        expect(completed).toContain(route.kind === 'anthropic' ? 'message_stop' : '[DONE]');
        const cut = await streamOnce(client, route.url, token, true);
        expect(cut).toContain('Onc');
        expect(cut).not.toContain('e end.');
        // A stop comes later than the abort: by then the gateway has accepted the connection the
        // client opened after it.
        await waitFor(() => connections === 2, 2_000);

        closing = gateway.close();
        expect(await within(closing, closeBoundMs)).toBe('done');
      } finally {
        // A close still waiting for this client's connections ends once they are gone.
        await client.destroy();
        await (closing ?? gateway.close());
      }
    });
  }

  it('closes a connection that has sent nothing, and answers one that has begun a request', async () => {
    const gateway = await startTestGateway();
    const origin = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(origin);
    const accepted: Socket[] = [];
    gateway.app.server.on('connection', (socket: Socket) => accepted.push(socket));
    const open = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      });
    const silent = await open();
    const begun = await open();
    let answered = '';
    begun.on('data', (chunk: Buffer) => (answered += chunk.toString('latin1')));
    const silentClosed = new Promise((resolve) => silent.once('close', resolve));
    const begunClosed = new Promise((resolve) => begun.once('close', resolve));
    let closing: Promise<void> | undefined;
    try {
      begun.write('GET /healthz HTTP/1.1\r\nhost: gateway\r\n');
      // The gateway has read the first bytes of the request before it starts closing.
      while (accepted.length < 2 || accepted.every((socket) => socket.bytesRead === 0)) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      closing = gateway.close();
      expect(await within(silentClosed, closeBoundMs)).toBe('done');
      // The request that had begun is finished and answered: the gateway is going away.
      begun.write('\r\n');
      expect(await within(closing, closeBoundMs)).toBe('done');
      await begunClosed;
      expect(answered).toMatch(/^HTTP\/1\.1 503 /);
      expect(answered).toContain('not_ready');
    } finally {
      silent.destroy();
      begun.destroy();
      await (closing ?? gateway.close());
    }
  });

  it('a SIGTERM then ends the process at once with 0, the aborted call charged', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'switchyard-aborted-stop-'));
    const store = await openSqliteStore({
      path: path.join(folder, 'switchyard.sqlite'),
      owner: false,
    });
    try {
      const { accountId, token } = await grantFundedToken(new OperatorService(store), {
        name: 'stop',
        credits: 10_000_000,
      });
      const gateway = await spawnGatewayChild({
        dataDir: folder,
        server: { shutdownGraceMs: 15_000 },
        providers: { anthropic: { kind: 'anthropic', baseUrl: upstream.url } },
        models: [testModel('model', 'anthropic')],
      });
      const client = new Client(gateway.url, { pipelining: 1 });
      let connects = 0;
      client.on('connect', () => (connects += 1));
      try {
        upstream.enqueue(
          { output: [{ text: answer }] },
          { output: [{ text: answer }], chunkDelayMs: 40 },
        );
        await streamOnce(client, '/v1/messages', token, false);
        await streamOnce(client, '/v1/messages', token, true);
        await waitFor(() => connects === 2, 2_000);

        const stoppedAt = Date.now();
        const exited = gateway.terminate();
        expect(await within(exited, closeBoundMs)).toBe('done');
        // Nothing was in flight: the stop did not wait for the grace, nor cut anything.
        expect(await exited).toBe(0);
        expect(Date.now() - stoppedAt).toBeLessThan(closeBoundMs);
      } finally {
        await client.destroy();
        await gateway.kill();
      }
      const outcomes = (await store.usage.listUsage(accountId, 10)).map((record) => record.outcome);
      expect(outcomes.sort()).toEqual(['cancelled', 'ok']);
    } finally {
      await store.close();
      await rm(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
