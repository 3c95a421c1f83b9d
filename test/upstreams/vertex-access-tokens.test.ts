import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  GoogleAccessTokens,
  GoogleTokenError,
} from '../../src/providers/vertex/google-access-tokens.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { createFakeVertex, type FakeVertex } from '../fake-upstream/wire-vertex.ts';
import { freePort } from '../support/free-port.ts';

let fake: FakeUpstream;
let vertex: FakeVertex;

beforeAll(async () => {
  vertex = createFakeVertex();
  fake = await startFakeUpstream({ wires: [vertex.wire] });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  vertex.reset();
});

/** A key of its own per test, so no token is shared between tests. */
let accounts = 0;
function newKey(): string {
  accounts += 1;
  return vertex.tokens.serviceAccountKey(
    fake.url,
    `account-${accounts}@fake-project.iam.gserviceaccount.com`,
  );
}

async function failureOf(promise: Promise<unknown>): Promise<GoogleTokenError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GoogleTokenError);
  return error as GoogleTokenError;
}

describe('access tokens for a service account key', () => {
  it("exchanges a JWT at the key's token_uri and reuses the token", async () => {
    const tokens = new GoogleAccessTokens();
    const key = newKey();
    const before = vertex.tokens.exchanges;
    const first = await tokens.token(key);
    expect(vertex.tokens.holderOf(first)).toBe(JSON.parse(key).client_email);
    expect(await tokens.token(key)).toBe(first);
    expect(vertex.tokens.exchanges).toBe(before + 1);
    const exchange = fake.requests.find((request) => request.path === '/token');
    expect(exchange?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
  });

  it('makes one exchange for concurrent calls', async () => {
    const tokens = new GoogleAccessTokens();
    const key = newKey();
    const before = vertex.tokens.exchanges;
    const issued = await Promise.all(Array.from({ length: 8 }, () => tokens.token(key)));
    expect(new Set(issued).size).toBe(1);
    expect(vertex.tokens.exchanges).toBe(before + 1);
  });

  it('refreshes a token before it expires', async () => {
    const tokens = new GoogleAccessTokens();
    const key = newKey();
    // Four minutes left is within the five the library refreshes ahead of expiry.
    vertex.tokens.lifetimeSeconds = 240;
    const first = await tokens.token(key);
    vertex.tokens.lifetimeSeconds = 3600;
    const second = await tokens.token(key);
    expect(second).not.toBe(first);
    expect(await tokens.token(key)).toBe(second);
  });

  it('keeps one token per key', async () => {
    const tokens = new GoogleAccessTokens();
    const [one, two] = [newKey(), newKey()];
    const [first, second] = await Promise.all([tokens.token(one), tokens.token(two)]);
    expect(vertex.tokens.holderOf(first)).toBe(JSON.parse(one).client_email);
    expect(vertex.tokens.holderOf(second)).toBe(JSON.parse(two).client_email);
  });

  it('reads a key file when the variable holds its path', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'switchyard-vertex-'));
    try {
      const path = join(directory, 'key.json');
      const key = newKey();
      await writeFile(path, key);
      const token = await new GoogleAccessTokens().token(path);
      expect(vertex.tokens.holderOf(token)).toBe(JSON.parse(key).client_email);
    } finally {
      await rm(directory, { recursive: true });
    }
  });
});

describe('a failed token exchange', () => {
  it('is a refused key when the endpoint refuses the grant, without key material', async () => {
    const key = newKey();
    vertex.tokens.failExchanges({ status: 400, errorType: 'invalid_grant' });
    const error = await failureOf(new GoogleAccessTokens().token(key));
    expect(error.failure).toBe('refused');
    expect(error.message).toBe(
      'The token endpoint refused the service account key (HTTP 400 invalid_grant).',
    );
  });

  it('is a failing upstream when the endpoint fails, and is not retried by the library', async () => {
    const key = newKey();
    vertex.tokens.failExchanges({ status: 503, errorType: 'temporarily_unavailable' });
    const before = fake.requests.length;
    const error = await failureOf(new GoogleAccessTokens().token(key));
    expect(error).toMatchObject({ failure: 'server', status: 503 });
    expect(fake.requests.length).toBe(before + 1);
  });

  it('times out on a slow endpoint', async () => {
    const key = newKey();
    vertex.tokens.failExchanges({ status: 500, delayMs: 1_000 });
    const tokens = new GoogleAccessTokens({ exchangeTimeoutMs: 100 });
    expect((await failureOf(tokens.token(key))).failure).toBe('timeout');
  });

  it('is a connection failure when the endpoint is unreachable', async () => {
    const key = JSON.parse(newKey());
    key.token_uri = `http://127.0.0.1:${await freePort()}/token`;
    const error = await failureOf(new GoogleAccessTokens().token(JSON.stringify(key)));
    expect(error.failure).toBe('connection');
  });

  it('names what is wrong with an unusable key, never its content', async () => {
    const tokens = new GoogleAccessTokens();
    const cases: Array<[string, string]> = [
      [
        '{"type":"service_account","private_key":"-----BEGIN PRIVATE KEY-----secret"}',
        'lacks client_email',
      ],
      ['{"type":"authorized_user","client_secret":"secret"}', 'a service account key'],
      ['{not json secret', 'not JSON'],
      ['/nonexistent/secret-key.json', 'could not be read (ENOENT)'],
    ];
    for (const [secret, message] of cases) {
      const error = await failureOf(tokens.token(secret));
      expect(error.failure).toBe('refused');
      expect(error.message).toContain(message);
      expect(error.message).not.toContain('secret');
    }
  });
});
