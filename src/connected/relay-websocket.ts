import WebSocket, { type RawData } from 'ws';

/** The connected-provider WebSocket upstream (config `connected.websocket`). */
export interface WebSocketTarget {
  url: string;
  apiKey: string | undefined;
  headers: Record<string, string>;
  connectTimeoutMs: number;
}

export interface RelayOptions {
  /** The client's query string without `?`, appended to the configured URL's. */
  query: string;
  /** The subprotocol the client negotiated, asked of the upstream too. */
  protocol: string;
  onError(error: Error, side: 'client' | 'upstream'): void;
}

/** RFC 6455 §7.4: 1014 tells the client the gateway got no usable answer from the upstream. */
const badGateway = 1014;
const internalError = 1011;
/** Buffered bytes on one side before reading from the other side pauses. */
const highWaterBytes = 4 * 1024 * 1024;

/** Close codes an endpoint may send; 1005, 1006 and 1015 only describe a closure locally. */
function sendableCloseCode(code: number): number | undefined {
  if (code === 1005) return undefined;
  if ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014)) return code;
  if (code >= 3000 && code <= 4999) return code;
  return internalError;
}

function closeWith(socket: WebSocket, code: number, reason: Buffer | string): void {
  if (socket.readyState === WebSocket.CLOSING || socket.readyState === WebSocket.CLOSED) return;
  if (socket.readyState === WebSocket.CONNECTING) {
    socket.terminate();
    return;
  }
  // A paused socket would never read the peer's close frame and hang until ws's close timeout.
  if (socket.isPaused) socket.resume();
  const sendable = sendableCloseCode(code);
  // A close reason is limited to 123 bytes (RFC 6455 §5.5).
  const text = (typeof reason === 'string' ? Buffer.from(reason) : reason).subarray(0, 123);
  if (sendable === undefined) socket.close();
  else socket.close(sendable, text);
}

/** Sends one message on, pausing the source while the destination's buffer is full. */
function pass(from: WebSocket, to: WebSocket, data: RawData, isBinary: boolean): void {
  to.send(data, { binary: isBinary }, () => {
    if (from.isPaused && to.bufferedAmount < highWaterBytes) from.resume();
  });
  if (to.bufferedAmount >= highWaterBytes) from.pause();
}

/**
 * Relays an accepted client WebSocket to the configured upstream (/ws, docs/decisions/0010): frames
 * pass both ways unchanged (text stays text, binary stays binary), closes are mirrored, and the
 * client's first messages wait until the upstream handshake is done.
 */
export function relayWebSocket(
  client: WebSocket,
  target: WebSocketTarget,
  options: RelayOptions,
): void {
  const url = new URL(target.url);
  if (options.query !== '')
    url.search = url.search === '' ? options.query : `${url.search.slice(1)}&${options.query}`;
  const headers: Record<string, string> = { ...target.headers };
  if (target.apiKey !== undefined) headers.authorization = `Bearer ${target.apiKey}`;
  const upstream = new WebSocket(url, options.protocol === '' ? [] : [options.protocol], {
    headers,
    handshakeTimeout: target.connectTimeoutMs,
    perMessageDeflate: false,
  });

  const early: Array<{ data: RawData; isBinary: boolean }> = [];
  client.pause();
  client.on('message', (data, isBinary) => {
    if (upstream.readyState === WebSocket.OPEN) pass(client, upstream, data, isBinary);
    else early.push({ data, isBinary });
  });

  upstream.on('open', () => {
    for (const message of early.splice(0)) pass(client, upstream, message.data, message.isBinary);
    client.resume();
  });
  upstream.on('message', (data, isBinary) => pass(upstream, client, data, isBinary));
  upstream.on('unexpected-response', (_request, response) => {
    options.onError(
      new Error(`upstream refused the upgrade with HTTP ${response.statusCode}`),
      'upstream',
    );
    response.resume();
    upstream.terminate();
    closeWith(client, badGateway, `upstream answered HTTP ${response.statusCode}`);
  });
  upstream.on('error', (error) => {
    options.onError(error, 'upstream');
    closeWith(client, badGateway, 'upstream connection failed');
  });
  upstream.on('close', (code, reason) => closeWith(client, code, reason));

  client.on('error', (error) => options.onError(error, 'client'));
  client.on('close', (code, reason) => {
    early.length = 0;
    closeWith(upstream, code, reason);
  });
}
