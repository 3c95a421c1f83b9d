/**
 * The plain floor (run as its own process, default Node flags): reads the body, forwards it to
 * UPSTREAM_URL through an undici Pool, and writes each chunk of the answer as it comes with
 * `for await`. The least a proxy can do written the plainest way; the bench measures it beside
 * the piped floor (bare-forwarder.ts) and holds the gateway to whichever costs less.
 */
import { createServer } from 'node:http';
import { Pool } from 'undici';

const pool = new Pool(String(process.env.UPSTREAM_URL), { connections: 256, pipelining: 1 });
const FORWARDED = ['content-type', 'authorization', 'x-api-key', 'anthropic-version'];

const server = createServer((request, response) => {
  const parts: Buffer[] = [];
  request.on('data', (part: Buffer) => parts.push(part));
  request.on('end', async () => {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    try {
      const upstream = await pool.request({
        method: 'POST',
        path: request.url ?? '/',
        headers,
        body: Buffer.concat(parts),
      });
      const type = upstream.headers['content-type'];
      response.writeHead(
        upstream.statusCode,
        typeof type === 'string' ? { 'content-type': type } : {},
      );
      for await (const chunk of upstream.body) response.write(chunk);
      response.end();
    } catch {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
