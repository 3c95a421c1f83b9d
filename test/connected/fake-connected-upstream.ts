import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface RecordedUpload {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface FakeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface FakeConnectedUpstream {
  /** http://127.0.0.1:PORT */
  httpUrl: string;
  /** ws://127.0.0.1:PORT */
  wsUrl: string;
  uploads: RecordedUpload[];
  /** Resolves with the first body bytes of the next upload, before the upload has ended. */
  nextFirstChunk(): Promise<Buffer>;
  answer: FakeAnswer;
  /** Handshake headers and URL of each accepted WebSocket. */
  sockets: Array<{
    url: string;
    headers: IncomingHttpHeaders;
    protocol: string;
    socket: WebSocket;
  }>;
  /** Resolves with the next accepted upstream WebSocket. */
  nextSocket(): Promise<WebSocket>;
  close(): Promise<void>;
}

/** A stand-in for a connected provider: an upload endpoint and a WebSocket endpoint. */
export async function startFakeConnectedUpstream(): Promise<FakeConnectedUpstream> {
  const uploads: RecordedUpload[] = [];
  const sockets: FakeConnectedUpstream['sockets'] = [];
  let firstChunkWaiters: Array<(chunk: Buffer) => void> = [];
  let socketWaiters: Array<(socket: WebSocket) => void> = [];
  const state = {
    answer: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"text":"hello from the connected provider"}',
    } as FakeAnswer,
  };

  const server = createServer((request, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      if (chunks.length === 0) {
        for (const waiter of firstChunkWaiters.splice(0)) waiter(chunk);
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      uploads.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
      });
      response.writeHead(state.answer.status, state.answer.headers);
      response.end(state.answer.body);
    });
  });
  const wss = new WebSocketServer({
    server,
    handleProtocols: (protocols) => [...protocols][0] ?? false,
  });
  wss.on('connection', (socket, request) => {
    sockets.push({
      url: request.url ?? '',
      headers: request.headers,
      protocol: socket.protocol,
      socket,
    });
    for (const waiter of socketWaiters.splice(0)) waiter(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    httpUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    uploads,
    sockets,
    get answer() {
      return state.answer;
    },
    set answer(value: FakeAnswer) {
      state.answer = value;
    },
    nextFirstChunk: () => new Promise((resolve) => firstChunkWaiters.push(resolve)),
    nextSocket: () => new Promise((resolve) => socketWaiters.push(resolve)),
    async close() {
      firstChunkWaiters = [];
      socketWaiters = [];
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
