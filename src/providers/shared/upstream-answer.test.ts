import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AbortHandle } from '../../shared/abort-handle.ts';
import { UpstreamBody } from './upstream-answer.ts';
import { UpstreamPools, type UpstreamTarget } from './upstream-pool.ts';

const text = 'Grüße — 你好 🌍 '.repeat(400);

describe('UpstreamBody', () => {
  it('asks undici to pause past 64 KiB unread, and to resume once the reader caught up', async () => {
    let resumed = 0;
    const body = new UpstreamBody(
      () => (resumed += 1),
      () => undefined,
    );
    const chunk = Buffer.alloc(16 * 1024, 97);
    expect([1, 2, 3].map(() => body.push(chunk))).toEqual([true, true, true]);
    // The fourth chunk fills 64 KiB.
    expect(body.push(chunk)).toBe(false);
    const reader = body[Symbol.asyncIterator]();
    await reader.next();
    // 48 KiB left: under the mark, so undici may read again.
    expect(resumed).toBe(1);
    await reader.next();
    expect(resumed).toBe(1);
    body.end();
    expect((await reader.next()).done).toBe(false);
    expect((await reader.next()).done).toBe(false);
    expect((await reader.next()).done).toBe(true);
  });

  it('hands the chunks that arrived before a failure to the reader, then the failure', async () => {
    const body = new UpstreamBody(
      () => undefined,
      () => undefined,
    );
    body.push(Buffer.from('first'));
    body.fail(new Error('cut'));
    const reader = body[Symbol.asyncIterator]();
    expect(String((await reader.next()).value)).toBe('first');
    await expect(reader.next()).rejects.toThrow('cut');
  });

  it('reads the whole body as text: chunks from before and after the call, never pausing it', async () => {
    let resumed = 0;
    const body = new UpstreamBody(
      () => (resumed += 1),
      () => undefined,
    );
    const bytes = Buffer.from(text);
    const cut = [0, 5, 17, 40_000, bytes.length];
    // 64 KiB arrive unread: undici is asked to pause.
    body.push(bytes.subarray(cut[0], cut[1]));
    body.push(bytes.subarray(cut[1], cut[2]));
    expect(body.push(Buffer.alloc(0))).toBe(true);
    const whole = body.text();
    for (let at = 2; at < cut.length - 1; at += 1) {
      expect(body.push(bytes.subarray(cut[at], cut[at + 1]))).toBe(true);
    }
    expect(body.push(Buffer.alloc(80 * 1024, 97))).toBe(true);
    body.end();
    expect(await whole).toBe(text + 'a'.repeat(80 * 1024));
    expect(resumed).toBe(0);
  });

  it('resumes a paused body once text() reads it, and fails it as the body fails', async () => {
    let resumed = 0;
    const paused = new UpstreamBody(
      () => (resumed += 1),
      () => undefined,
    );
    expect(paused.push(Buffer.alloc(64 * 1024, 98))).toBe(false);
    const whole = paused.text();
    expect(resumed).toBe(1);
    paused.push(Buffer.from('!'));
    paused.fail(new Error('cut'));
    await expect(whole).rejects.toThrow('cut');

    const aborted: Error[] = [];
    const left = new UpstreamBody(
      () => undefined,
      (error) => aborted.push(error),
    );
    const waiting = left.text();
    left.destroy();
    await expect(waiting).rejects.toThrow();
    expect(aborted).toHaveLength(1);
  });
});

describe('upstream answers over undici', () => {
  let server: Server;
  let baseUrl: string;
  const closedEarly: string[] = [];
  const FLOOD_BYTES = 32 * 1024 * 1024;
  let flooded = 0;

  beforeAll(async () => {
    // `/chunks` sends `text` in 7-byte pieces (characters split across them); `/endless` writes
    // until the connection goes away; `/cut` sends a piece, then destroys the connection.
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      if (request.url === '/chunks') {
        response.setHeader('set-cookie', ['a=1', 'b=2']);
        response.setHeader('X-Upstream-Id', 'up-1');
        const bytes = Buffer.from(text);
        let offset = 0;
        const next = () => {
          if (offset >= bytes.length) return response.end();
          response.write(bytes.subarray(offset, offset + 7));
          offset += 7;
          setImmediate(next);
        };
        next();
      } else if (request.url === '/endless') {
        response.on('close', () => {
          if (!response.writableFinished) closedEarly.push('/endless');
        });
        const timer = setInterval(() => response.write('data: {"x":1}\n\n'), 5);
        response.on('close', () => clearInterval(timer));
      } else if (request.url === '/flood') {
        // Writes 32 MiB as fast as the connection takes it, counting what it could write.
        flooded = 0;
        const piece = Buffer.alloc(64 * 1024, 120);
        const more = () => {
          while (flooded < FLOOD_BYTES) {
            flooded += piece.length;
            if (!response.write(piece)) return void response.once('drain', more);
          }
          response.end();
        };
        more();
      } else if (request.url === '/cut') {
        response.write('partial');
        setTimeout(() => response.socket?.destroy(), 50);
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const target: () => UpstreamTarget = () => ({
    baseUrl,
    connectTimeoutMs: 1_000,
    firstByteTimeoutMs: 5_000,
    idleTimeoutMs: 5_000,
    maxConnections: 4,
  });
  const send = (pools: UpstreamPools, path: string) =>
    pools.send(target(), { path, headers: {}, body: '{}', signal: new AbortHandle() });

  it('reads a body sent in pieces as text, and as bytes by iteration', async () => {
    const pools = new UpstreamPools();
    try {
      const whole = await send(pools, '/chunks');
      expect(whole.statusCode).toBe(200);
      expect(whole.headers['x-upstream-id']).toBe('up-1');
      expect(whole.headers['set-cookie']).toEqual(['a=1', 'b=2']);
      expect(await whole.body.text()).toBe(text);
      const pieces: Buffer[] = [];
      for await (const chunk of (await send(pools, '/chunks')).body) pieces.push(chunk);
      expect(Buffer.concat(pieces).equals(Buffer.from(text))).toBe(true);
    } finally {
      await pools.close();
    }
  });

  it('aborts the upstream request when the reader leaves before the end', async () => {
    const pools = new UpstreamPools();
    try {
      const response = await send(pools, '/endless');
      let seen = 0;
      for await (const chunk of response.body) {
        seen += chunk.length;
        if (seen > 100) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(closedEarly).toEqual(['/endless']);
    } finally {
      await pools.close();
    }
  });

  it('holds the upstream back while the reader does not read', async () => {
    const pools = new UpstreamPools();
    try {
      const response = await send(pools, '/flood');
      await new Promise((resolve) => setTimeout(resolve, 300));
      // Without backpressure undici would have read all 32 MiB into memory by now; with it, the
      // upstream waits once the socket buffers and the body's 64 KiB are full.
      const writtenWhileIdle = flooded;
      expect(writtenWhileIdle).toBeLessThan(FLOOD_BYTES / 2);
      let read = 0;
      for await (const chunk of response.body) read += chunk.length;
      expect(read).toBe(FLOOD_BYTES);
    } finally {
      await pools.close();
    }
  });

  it('fails the reading when the connection is cut mid-body', async () => {
    const pools = new UpstreamPools();
    try {
      const response = await send(pools, '/cut');
      await expect(response.body.text()).rejects.toThrow();
    } finally {
      await pools.close();
    }
  });
});
