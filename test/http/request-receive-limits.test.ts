import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import {
  adminToken,
  startTestGateway,
  testModel,
  type TestGateway,
} from '../support/test-gateway.ts';

/** A raw HTTP/1.1 connection: what a slow or hostile client does, byte by byte. */
interface RawConnection {
  socket: Socket;
  /** Everything the gateway sent so far. */
  received(): string;
  /** Resolves with everything received once the gateway closed the connection. */
  closed: Promise<string>;
  /** Resolves once the received text contains `text`. */
  waitFor(text: string): Promise<string>;
}

function openConnection(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const waiters: Array<() => void> = [];
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      for (const waiter of waiters) waiter();
    });
    // The gateway may reset a connection whose body it refused; what it sent before still counts.
    socket.on('error', () => undefined);
    const closed = new Promise<string>((resolveClosed) =>
      socket.on('close', () => resolveClosed(data)),
    );
    socket.once('connect', () =>
      resolve({
        socket,
        received: () => data,
        closed,
        waitFor: (text) =>
          new Promise((resolveText, rejectText) => {
            const check = () => {
              if (data.includes(text)) resolveText(data);
            };
            waiters.push(check);
            check();
            void closed.then(() =>
              data.includes(text)
                ? resolveText(data)
                : rejectText(new Error(`closed without ${text}: ${data}`)),
            );
          }),
      }),
    );
    socket.once('error', reject);
  });
}

const head = (path: string, headers: Record<string, string | number>) =>
  `POST ${path} HTTP/1.1\r\nhost: localhost\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;

const messagesBody = (stream = false) =>
  JSON.stringify({
    model: 'claude',
    max_tokens: 20,
    ...(stream ? { stream: true } : {}),
    messages: [{ role: 'user', content: 'hi' }],
  });

const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
const thirtyMiB = 30 * 1024 * 1024;

/** docs/operations.md: what an unauthenticated or slow client can make the gateway hold. */
describe('request receipt limits (real sockets)', () => {
  let upstream: FakeUpstream;
  beforeAll(async () => {
    upstream = await startFakeUpstream();
  });
  afterAll(async () => upstream.close());

  const gatewayWith = async (server: Record<string, unknown>) => {
    const gateway = await startTestGateway({
      server,
      providers: { anthropic: { kind: 'anthropic', baseUrl: upstream.url } },
      models: [testModel('claude', 'anthropic')],
    });
    const address = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    return { gateway, port: Number(new URL(address).port) };
  };

  describe('checks credentials before reading a body', () => {
    let gateway: TestGateway;
    let port: number;
    beforeAll(async () => ({ gateway, port } = await gatewayWith({})));
    afterAll(async () => gateway.close());

    it('answers 401 to a bad token on the headers and closes, without waiting for a 30 MiB body', async () => {
      for (const [path, credential] of [
        ['/v1/messages', { 'x-api-key': 'sy_invalid' }],
        ['/v1/chat/completions', { authorization: 'Bearer sy_invalid' }],
        ['/api/admin/accounts', { authorization: 'Bearer wrong-admin-token' }],
      ] as const) {
        const connection = await openConnection(port);
        connection.socket.write(
          head(path, {
            ...credential,
            'content-type': 'application/json',
            'content-length': thirtyMiB,
          }),
        );
        connection.socket.write('{"model":"claude","padding":"');
        const answer = await connection.closed;
        expect(statusOf(answer), path).toBe(401);
        expect(answer.toLowerCase()).toContain('connection: close');
        expect(answer).toContain('authentication_error');
      }
    });

    it('never asks a client that expects 100-continue for the body of a refused request', async () => {
      const connection = await openConnection(port);
      connection.socket.write(
        head('/v1/messages', {
          'x-api-key': 'sy_invalid',
          'content-type': 'application/json',
          'content-length': thirtyMiB,
          expect: '100-continue',
        }),
      );
      const answer = await connection.closed;
      expect(statusOf(answer)).toBe(401);
      expect(answer).not.toContain('100 Continue');
    });

    it('asks for the body once the token is accepted, and serves the request', async () => {
      const { token } = await gateway.createToken({ credits: 10_000_000 });
      const body = messagesBody();
      const connection = await openConnection(port);
      connection.socket.write(
        head('/v1/messages', {
          'x-api-key': token,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          expect: '100-continue',
          connection: 'close',
        }),
      );
      expect(statusOf(await connection.waitFor('\r\n\r\n'))).toBe(100);
      connection.socket.write(body);
      const answer = await connection.closed;
      expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toMatch(/^HTTP\/1\.1 200/);
    });

    it('keeps the admin API working with the right credential', async () => {
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/api/admin/accounts',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        payload: { name: 'edge' },
      });
      expect(response.statusCode).toBe(201);
    });
  });

  describe('bounds the time to receive a request', () => {
    let gateway: TestGateway;
    let port: number;
    let token: string;
    beforeAll(async () => {
      ({ gateway, port } = await gatewayWith({ requestReceiveTimeoutMs: 600 }));
      ({ token } = await gateway.createToken({ credits: 10_000_000 }));
    });
    afterAll(async () => gateway.close());

    it('answers 408 in the route shape and closes a connection whose body stalls', async () => {
      const connection = await openConnection(port);
      const started = Date.now();
      connection.socket.write(
        head('/v1/messages', {
          'x-api-key': token,
          'content-type': 'application/json',
          'content-length': 1000,
        }),
      );
      connection.socket.write('{"model":"claude",');
      const answer = await connection.closed;
      const elapsed = Date.now() - started;
      expect(statusOf(answer)).toBe(408);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
        type: 'error',
        error: { type: 'timeout_error' },
      });
      expect(elapsed).toBeGreaterThanOrEqual(550);
      expect(elapsed).toBeLessThan(3000);
    });

    it('does not cut an answer that streams for longer than the receive timeout', async () => {
      upstream.enqueue({
        output: [{ text: 'one two three four five six seven eight' }],
        chunkDelayMs: 150,
      });
      const body = messagesBody(true);
      const connection = await openConnection(port);
      const started = Date.now();
      connection.socket.write(
        head('/v1/messages', {
          'x-api-key': token,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          connection: 'close',
        }) + body,
      );
      const answer = await connection.closed;
      expect(Date.now() - started).toBeGreaterThan(1200);
      expect(statusOf(answer)).toBe(200);
      expect(answer).toContain('event: message_stop');
    });
  });

  describe('bounds the bytes of bodies held at once', () => {
    let gateway: TestGateway;
    let port: number;
    let token: string;
    beforeAll(async () => {
      ({ gateway, port } = await gatewayWith({
        bodyLimitBytes: 50_000,
        bodiesInFlightLimitBytes: 64 * 1024,
      }));
      ({ token } = await gateway.createToken({ credits: 10_000_000 }));
    });
    afterAll(async () => gateway.close());

    const send = async (headers: Record<string, string | number>, body: string) => {
      const connection = await openConnection(port);
      connection.socket.write(
        head('/v1/messages', {
          'x-api-key': token,
          'content-type': 'application/json',
          connection: 'close',
          ...headers,
        }) + body,
      );
      return connection.closed;
    };
    /** A body padded to `bytes` with an extra field the upstream ignores. */
    const paddedBody = (bytes: number) => {
      const base = messagesBody();
      return `${base.slice(0, -1)},"metadata":{"pad":"${'x'.repeat(bytes - base.length - 22)}"}}`;
    };

    it('answers 413 to a declared length over the limit before the body is sent', async () => {
      const answer = await send({ 'content-length': 200_000 }, '');
      expect(statusOf(answer)).toBe(413);
      expect(answer).toContain('request_too_large');
    });

    it('answers 413 to a chunked body that grows past the limit', async () => {
      const chunk = 'x'.repeat(30_000);
      const chunks = Array.from(
        { length: 4 },
        () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
      ).join('');
      const answer = await send({ 'transfer-encoding': 'chunked' }, `1\r\n{\r\n${chunks}`);
      expect(statusOf(answer)).toBe(413);
    });

    it('answers 503 with retry-after while other bodies fill the budget, and serves again once they are gone', async () => {
      const body = paddedBody(40_000);
      expect(Buffer.byteLength(body)).toBe(40_000);
      expect(statusOf(await send({ 'content-length': 40_000 }, body))).toBe(200);

      const stalled = await openConnection(port);
      stalled.socket.write(
        head('/v1/messages', {
          'x-api-key': token,
          'content-type': 'application/json',
          'content-length': 40_000,
        }) + body.slice(0, 1000),
      );
      // Give the gateway time to take the stalled body's reservation.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const refused = await send({ 'content-length': 40_000 }, body);
      expect(statusOf(refused)).toBe(503);
      expect(refused.toLowerCase()).toContain('retry-after: 1');
      expect(refused).toContain('overloaded_error');

      stalled.socket.destroy();
      await stalled.closed;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(statusOf(await send({ 'content-length': 40_000 }, body))).toBe(200);
      // A client that leaves mid-body is its own mistake, not a gateway failure.
      for (const line of gateway.logs) expect(JSON.parse(line).level, line).toBeLessThan(50);
    });
  });
});
