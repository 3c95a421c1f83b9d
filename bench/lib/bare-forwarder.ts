/**
 * The floor (run as its own process): reads the body, forwards it to UPSTREAM_URL through an
 * undici Pool, pipes the answer back. No parsing, auth or metering: the least a proxy can do.
 */
import { createServer } from 'node:http';
import { pipeline } from 'node:stream';
import { Pool } from 'undici';

const pool = new Pool(String(process.env.UPSTREAM_URL), { connections: 512 });
const FORWARDED = ['content-type', 'authorization', 'x-api-key', 'anthropic-version'];

const server = createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', () => {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    pool
      .request({
        method: 'POST',
        path: request.url ?? '/',
        headers,
        body: Buffer.concat(parts),
      })
      .then(
        (upstream) => {
          const type = upstream.headers['content-type'];
          response.writeHead(
            upstream.statusCode,
            typeof type === 'string' ? { 'content-type': type } : {},
          );
          pipeline(upstream.body, response, () => undefined);
        },
        () => response.writeHead(502).end(),
      );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
