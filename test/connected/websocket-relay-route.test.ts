import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import WebSocket, { type RawData } from 'ws';
import { parseConfig } from '../../src/config/load-config.ts';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import {
  startFakeConnectedUpstream,
  type FakeConnectedUpstream,
} from './fake-connected-upstream.ts';

const upstreamKey = 'connected-ws-tests-upstream-key';
const upstreamKeyEnv = 'CONNECTED_WS_TESTS_UPSTREAM_KEY';

/** Resolves with the HTTP status of a refused upgrade, or 101 when the socket opened. */
function upgradeStatus(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_request, response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.on('open', () => {
      resolve(101);
      socket.close();
    });
    socket.on('error', (error) => {
      if (!/closed before the connection/.test(error.message)) reject(error);
    });
  });
}

function openSocket(url: string, token: string, protocols: string[] = []): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, protocols, { headers: { authorization: `Bearer ${token}` } });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

function nextMessage(socket: WebSocket): Promise<{ data: RawData; isBinary: boolean }> {
  return new Promise((resolve) =>
    socket.once('message', (data, isBinary) => resolve({ data, isBinary })),
  );
}

function nextClose(socket: WebSocket): Promise<{ code: number; reason: string }> {
  return new Promise((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
}

describe('GET /ws and /v1 WebSocket relay for connected tokens', () => {
  let upstream: FakeConnectedUpstream;
  let gateway: TestGateway;
  let wsOrigin: string;
  let adminToken: string;

  beforeAll(async () => {
    upstream = await startFakeConnectedUpstream();
    process.env[upstreamKeyEnv] = upstreamKey;
    gateway = await startTestGateway({
      connected: {
        websocket: {
          url: `${upstream.wsUrl}/v1/realtime?tier=connected`,
          apiKeyEnv: upstreamKeyEnv,
          headers: { 'x-provider-beta': 'realtime=v1' },
        },
      },
    });
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    wsOrigin = `ws://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
    adminToken = (await gateway.createToken({ isAdmin: true, interface: 'connected' })).token;
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.sockets.length = 0;
  });

  it('refuses the upgrade without a token (401) and with a credits token (400)', async () => {
    expect(await upgradeStatus(`${wsOrigin}/ws`, {})).toBe(401);
    const { token } = await gateway.createToken({ isAdmin: true });
    expect(await upgradeStatus(`${wsOrigin}/ws`, { authorization: `Bearer ${token}` })).toBe(400);
    expect(await upgradeStatus(`${wsOrigin}/v1`, { 'x-api-key': token })).toBe(400);
    expect(upstream.sockets).toEqual([]);
  });

  it('answers a plain GET with the interface error, or 426 for a connected token', async () => {
    const { token } = await gateway.createToken({ isAdmin: true });
    const credits = await gateway.app.inject({
      url: '/ws',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(credits.statusCode).toBe(400);
    expect(credits.json()).toMatchObject({ error: { code: 'wrong_interface' } });
    const plain = await gateway.app.inject({
      url: '/v1',
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(plain.statusCode).toBe(426);
    expect(plain.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('is the exact path /v1 only: /v1/ and /v1/anything are not the relay', async () => {
    const headers = { authorization: `Bearer ${adminToken}` };
    expect(await upgradeStatus(`${wsOrigin}/v1/`, headers)).toBe(404);
    expect(await upgradeStatus(`${wsOrigin}/v1/realtime`, headers)).toBe(404);
  });

  for (const path of ['/ws', '/v1']) {
    it(`${path} relays text and binary frames both ways, unchanged`, async () => {
      const accepted = upstream.nextSocket();
      const client = await openSocket(`${wsOrigin}${path}?model=rt-1`, adminToken);
      const upstreamSocket = await accepted;

      // The gateway's key and configured headers go upstream; the client's token never does.
      const handshake = upstream.sockets[0];
      expect(handshake?.url).toBe('/v1/realtime?tier=connected&model=rt-1');
      expect(handshake?.headers.authorization).toBe(`Bearer ${upstreamKey}`);
      expect(handshake?.headers['x-provider-beta']).toBe('realtime=v1');
      expect(JSON.stringify(handshake?.headers)).not.toContain(adminToken);

      const towardsUpstream = nextMessage(upstreamSocket);
      client.send('{"type":"session.update"}');
      const received = await towardsUpstream;
      expect(received.isBinary).toBe(false);
      expect(received.data.toString()).toBe('{"type":"session.update"}');

      const towardsClient = nextMessage(client);
      upstreamSocket.send('{"type":"session.updated"}');
      const answered = await towardsClient;
      expect(answered.isBinary).toBe(false);
      expect(answered.data.toString()).toBe('{"type":"session.updated"}');

      const audio = Buffer.from(Array.from({ length: 512 }, (_, index) => index % 256));
      const binaryUp = nextMessage(upstreamSocket);
      client.send(audio);
      const binaryReceived = await binaryUp;
      expect(binaryReceived.isBinary).toBe(true);
      expect(Buffer.from(binaryReceived.data as Buffer).equals(audio)).toBe(true);

      const upstreamClosed = nextClose(upstreamSocket);
      client.close(4001, 'client done');
      expect(await upstreamClosed).toEqual({ code: 4001, reason: 'client done' });
    });
  }

  it('keeps messages sent before the upstream handshake finished, in order', async () => {
    const accepted = upstream.nextSocket();
    const client = new WebSocket(`${wsOrigin}/ws`, {
      headers: { authorization: `Bearer ${adminToken}` },
    });
    await new Promise((resolve) => client.once('open', resolve));
    client.send('first');
    client.send('second');
    const upstreamSocket = await accepted;
    const received: string[] = [];
    await new Promise<void>((resolve) =>
      upstreamSocket.on('message', (data) => {
        received.push(data.toString());
        if (received.length === 2) resolve();
      }),
    );
    expect(received).toEqual(['first', 'second']);
    client.close();
  });

  it('mirrors an upstream close to the client', async () => {
    const accepted = upstream.nextSocket();
    const client = await openSocket(`${wsOrigin}/ws`, adminToken);
    const upstreamSocket = await accepted;
    const clientClosed = nextClose(client);
    upstreamSocket.close(1000, 'session over');
    expect(await clientClosed).toEqual({ code: 1000, reason: 'session over' });
  });

  it('asks the upstream for the subprotocol the client negotiated', async () => {
    const accepted = upstream.nextSocket();
    const client = await openSocket(`${wsOrigin}/ws`, adminToken, ['realtime']);
    await accepted;
    expect(client.protocol).toBe('realtime');
    expect(upstream.sockets[0]?.protocol).toBe('realtime');
    client.close();
  });
});

describe('GET /ws without a reachable or configured upstream', () => {
  it('closes the client with 1014 when the upstream cannot be reached', async () => {
    const gateway = await startTestGateway({
      connected: { websocket: { url: 'ws://127.0.0.1:9/realtime' } },
    });
    try {
      await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (gateway.app.server.address() as AddressInfo).port;
      const { token } = await gateway.createToken({ isAdmin: true, interface: 'connected' });
      const client = await openSocket(`ws://127.0.0.1:${port}/ws`, token);
      expect((await nextClose(client)).code).toBe(1014);
    } finally {
      await gateway.close();
    }
  });

  it('refuses the upgrade with 404 naming the missing setting', async () => {
    const gateway = await startTestGateway();
    try {
      await gateway.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (gateway.app.server.address() as AddressInfo).port;
      const { token } = await gateway.createToken({ isAdmin: true, interface: 'connected' });
      const url = `ws://127.0.0.1:${port}/ws`;
      expect(await upgradeStatus(url, {})).toBe(401);
      expect(await upgradeStatus(url, { authorization: `Bearer ${token}` })).toBe(404);
      const plain = await gateway.app.inject({
        url: '/ws',
        headers: { authorization: `Bearer ${token}` },
      });
      expect(plain.json()).toMatchObject({
        error: { code: 'not_found', message: expect.stringContaining('connected.websocket.url') },
      });
    } finally {
      await gateway.close();
    }
  });
});

describe('connected configuration', () => {
  it('fills the timeouts and the body limit, and names a bad URL', () => {
    const config = parseConfig({
      connected: {
        transcribe: { url: 'https://provider.example/v1/audio' },
        websocket: { url: 'wss://provider.example/rt' },
      },
    });
    expect(config.connected.transcribe).toMatchObject({
      connectTimeoutMs: 10_000,
      firstByteTimeoutMs: 120_000,
      idleTimeoutMs: 300_000,
      maxBodyBytes: 27_262_976,
    });
    expect(config.connected.websocket).toMatchObject({ connectTimeoutMs: 10_000 });
    expect(() =>
      parseConfig({ connected: { websocket: { url: 'https://provider.example' } } }),
    ).toThrow(/connected\.websocket\.url: not a ws\(s\) URL/);
    expect(() =>
      parseConfig({ connected: { transcribe: { url: 'ftp://provider.example' } } }),
    ).toThrow(/connected\.transcribe\.url: not an http\(s\) URL/);
  });
});
