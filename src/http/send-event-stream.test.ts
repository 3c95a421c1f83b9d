import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import Fastify, { type FastifyInstance } from 'fastify';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';

import { sendEventStream } from './send-event-stream.ts';

let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A server whose one route streams what `frames` yields; `responses` lists onResponse calls. */
async function serve(frames: () => AsyncGenerator<string>) {
  const responses: number[] = [];
  app = Fastify();
  app.addHook('onResponse', (_request, reply, done) => {
    responses.push(reply.statusCode);
    done();
  });
  app.get('/stream', async (_request, reply) => {
    reply.header('content-type', 'text/event-stream; charset=utf-8');
    reply.header('x-switchyard-test', 'kept');
    sendEventStream(reply.code(200), frames());
    return reply;
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `${address}/stream`, port: Number(new URL(address).port), responses };
}

describe('sendEventStream', () => {
  it('sends the headers set on the reply and every frame in order, then ends', async () => {
    const { url, responses } = await serve(async function* () {
      yield 'data: 1\n\n';
      yield 'data: 2\n\n';
      await sleep(10);
      yield 'data: 3\n\n';
    });
    const answer = await request(url);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(answer.headers['x-switchyard-test']).toBe('kept');
    expect(await answer.body.text()).toBe('data: 1\n\ndata: 2\n\ndata: 3\n\n');
    // Hooks that listen on the response (metrics, shutdown) still see it finish.
    await sleep(10);
    expect(responses).toEqual([200]);
  });

  it('delivers a frame before the producer has the next one', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { url } = await serve(async function* () {
      yield 'data: first\n\n';
      await gate;
      yield 'data: second\n\n';
    });
    const answer = await request(url);
    const reader = answer.body[Symbol.asyncIterator]();
    const first = await reader.next();
    expect(String(first.value)).toBe('data: first\n\n');
    release();
    const rest = await reader.next();
    expect(String(rest.value)).toBe('data: second\n\n');
  });

  it('returns the producer when the client goes away, so its finally block runs', async () => {
    let finished = false;
    let yielded = 0;
    const { port } = await serve(async function* () {
      try {
        for (;;) {
          yielded += 1;
          yield 'data: tick\n\n';
          await sleep(10);
        }
      } finally {
        finished = true;
      }
    });
    const socket = connect(port, '127.0.0.1');
    socket.write('GET /stream HTTP/1.1\r\nhost: x\r\n\r\n');
    await new Promise((resolve) => socket.once('data', resolve));
    socket.destroy();
    await sleep(100);
    expect(finished).toBe(true);
    const after = yielded;
    await sleep(50);
    expect(yielded).toBe(after);
  });

  it('writes the last frames and the end together when the producer finishes within the turn', async () => {
    // As a relay does: its last frames, then a settlement committed in the check phase.
    const { port } = await serve(async function* () {
      yield 'data: first\n\n';
      await sleep(20);
      yield 'data: last\n\n';
      await new Promise((resolve) => setImmediate(resolve));
    });
    const socket = connect(port, '127.0.0.1');
    socket.write('GET /stream HTTP/1.1\r\nhost: x\r\n\r\n');
    const reads: string[] = [];
    socket.on('data', (chunk: Buffer) => reads.push(chunk.toString('latin1')));
    for (let waited = 0; !reads.join('').endsWith('0\r\n\r\n') && waited < 2_000; waited += 10) {
      await sleep(10);
    }
    socket.destroy();
    const tail = reads.at(-1) ?? '';
    // One read holds the last frame and the chunked terminator: they left in one write.
    expect(tail).toContain('data: last\n\n');
    expect(tail.endsWith('\r\n0\r\n\r\n')).toBe(true);
    // The first frame did not wait for the rest of the stream.
    expect(reads.findIndex((read) => read.includes('data: first'))).toBeLessThan(reads.length - 1);
  });

  it('cuts the response short when the producer throws', async () => {
    const { url } = await serve(async function* () {
      yield 'data: 1\n\n';
      await sleep(5);
      throw new Error('upstream broke');
    });
    const answer = await request(url);
    await expect(answer.body.text()).rejects.toThrow();
  });

  it('stops pulling while the client does not read, and resumes when it does', async () => {
    const frame = `data: ${'x'.repeat(65_536)}\n\n`;
    const total = 1_000;
    let produced = 0;
    const { port } = await serve(async function* () {
      for (let index = 0; index < total; index += 1) {
        produced += 1;
        yield frame;
      }
    });
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    socket.write('GET /stream HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    await sleep(300);
    // The socket's buffers hold a few megabytes at most: 64 MB of frames cannot all be made.
    expect(produced).toBeGreaterThan(0);
    expect(produced).toBeLessThan(total / 4);
    let received = 0;
    socket.on('data', (chunk: Buffer) => (received += chunk.length));
    socket.resume();
    await new Promise((resolve) => socket.once('end', resolve));
    expect(produced).toBe(total);
    expect(received).toBeGreaterThan(total * frame.length);
  });
});
