import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A collector that takes every OTLP/HTTP export and answers 200 at once, so `--otlp` measures what
 * tracing costs the gateway (building spans, batching, encoding, sending), not a collector.
 */
export async function startOtlpSink(): Promise<{
  url: string;
  exports: () => number;
  close(): Promise<void>;
}> {
  let exports = 0;
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      exports += 1;
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    exports: () => exports,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
