import { createServer, request as forward } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One exchange between a real client and the gateway, as it crossed the wire. */
export interface ClientExchange {
  method: string;
  /** Path and query as the client sent them (e.g. `/v1/messages?beta=true`). */
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The parsed JSON body, or undefined when it was empty or not JSON. */
  body: unknown;
  status: number | undefined;
  responseHeaders: IncomingHttpHeaders;
  /** The gateway's answer (an SSE stream, a JSON body or an error), as text. */
  responseText: string;
}

export interface RecordingProxy {
  /** Point the client here instead of at the gateway. */
  origin: string;
  exchanges: ClientExchange[];
  close(): Promise<void>;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A transparent HTTP relay in front of the gateway that records what the client sent and what
 * the gateway answered, so a test can compare the client's request with what reached the fake
 * upstream (the gateway never forwards a request it refused). Bodies stream through unchanged.
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const targetUrl = new URL(target);
  const exchanges: ClientExchange[] = [];
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const exchange: ClientExchange = {
        method: incoming.method ?? 'GET',
        url: incoming.url ?? '/',
        headers: incoming.headers,
        rawBody,
        body: parseJson(rawBody),
        status: undefined,
        responseHeaders: {},
        responseText: '',
      };
      exchanges.push(exchange);
      const upstream = forward(
        {
          host: targetUrl.hostname,
          port: targetUrl.port,
          method: exchange.method,
          path: exchange.url,
          headers: { ...incoming.headers, host: targetUrl.host },
        },
        (answer) => {
          exchange.status = answer.statusCode;
          exchange.responseHeaders = answer.headers;
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.on('data', (chunk: Buffer) => {
            exchange.responseText += chunk.toString('utf8');
            outgoing.write(chunk);
          });
          answer.on('end', () => outgoing.end());
          answer.on('error', () => outgoing.destroy());
        },
      );
      upstream.on('error', () => outgoing.destroy());
      outgoing.on('close', () => {
        if (!outgoing.writableFinished) upstream.destroy();
      });
      upstream.end(rawBody);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    exchanges,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
