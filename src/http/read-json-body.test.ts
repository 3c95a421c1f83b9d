import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';

import { BodyByteBudget } from './body-byte-budget.ts';
import { installJsonBodyParser } from './read-json-body.ts';

let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** Posts `parts` as separate writes (a pause between each) and returns the echoed `text`. */
async function echo(parts: Buffer[]): Promise<unknown> {
  app = Fastify();
  installJsonBodyParser(app, { bodyLimitBytes: 1 << 20, budget: new BodyByteBudget(1 << 24) });
  app.post('/echo', async (request) => (request.body as { text: unknown }).text);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      { host: '127.0.0.1', port, path: '/echo', method: 'POST' },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += String(chunk)));
        response.on('end', () => resolve(body));
      },
    );
    outgoing.setHeader('content-type', 'application/json');
    outgoing.on('error', reject);
    void (async () => {
      for (const part of parts) {
        outgoing.write(part);
        await sleep(20);
      }
      outgoing.end();
    })();
  });
}

describe('the JSON body reader', () => {
  it('reads an ASCII body', async () => {
    expect(await echo([Buffer.from('{"text":"plain \\u00e9 text"}')])).toBe('plain é text');
  });

  it('reads an ASCII body that arrives in several packets, each decoded alone', async () => {
    const bytes = Buffer.from(`{"text":"${'abc\\"xyz '.repeat(2_000)}end"}`);
    const parts = [bytes.subarray(0, 7), bytes.subarray(7, 9_001), bytes.subarray(9_001)];
    expect(await echo(parts)).toBe(`${'abc"xyz '.repeat(2_000)}end`);
  });

  it('reads a body whose later packet only is UTF-8', async () => {
    const bytes = Buffer.from(`{"text":"${'a'.repeat(5_000)} 日本"}`, 'utf8');
    expect(await echo([bytes.subarray(0, 100), bytes.subarray(100)])).toBe(
      `${'a'.repeat(5_000)} 日本`,
    );
  });

  it('decodes UTF-8, a character cut between two packets included', async () => {
    const bytes = Buffer.from('{"text":"café — 日本 🚀"}', 'utf8');
    const cut = bytes.indexOf(Buffer.from('本', 'utf8')) + 1;
    expect(await echo([bytes.subarray(0, cut), bytes.subarray(cut)])).toBe('café — 日本 🚀');
  });

  it('reads bytes that are not UTF-8 as U+FFFD, as a UTF-8 decoder does', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"text":"a'),
      Buffer.from([0xff, 0xe9]),
      Buffer.from('b"}'),
    ]);
    expect(await echo([bytes])).toBe('a\ufffd\ufffdb');
  });
});
