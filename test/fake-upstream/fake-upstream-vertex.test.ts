import { createSign, generateKeyPairSync } from 'node:crypto';

import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { callFakeUpstream, eventDataOf, jsonOf } from './call-fake-upstream.ts';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream-server.ts';
import { createFakeVertex, type FakeVertex } from './wire-vertex.ts';

let fake: FakeUpstream;
let vertex: FakeVertex;
let key: { client_email: string; private_key: string; token_uri: string };

beforeAll(async () => {
  vertex = createFakeVertex();
  fake = await startFakeUpstream({ wires: [vertex.wire], promptCache: true });
  key = JSON.parse(vertex.tokens.serviceAccountKey(fake.url));
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  vertex.reset();
});

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** A JWT bearer assertion as a service account signs it (RFC 7523). */
function assertion(claims: Record<string, unknown> = {}, privateKey = key.private_key): string {
  const now = Math.floor(Date.now() / 1000);
  const head = `${encode({ alg: 'RS256', typ: 'JWT' })}.${encode({
    iss: key.client_email,
    scope: 'https://www.googleapis.com/auth/cloud-platform',
    aud: key.token_uri,
    iat: now,
    exp: now + 3600,
    ...claims,
  })}`;
  const signature = createSign('sha256').update(head).sign(privateKey, 'base64url');
  return `${head}.${signature}`;
}

async function exchange(jwt: string) {
  const response = await request(key.token_uri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: jwt,
    }).toString(),
  });
  return {
    status: response.statusCode,
    body: (await response.body.json()) as Record<string, unknown>,
  };
}

async function accessToken(): Promise<string> {
  return String((await exchange(assertion())).body.access_token);
}

const modelPath = '/v1/projects/fake-project/locations/us-east5/publishers/anthropic/models';

function claude(method: string, body: Record<string, unknown>, token?: string) {
  return callFakeUpstream(`${fake.url}${modelPath}/claude-sonnet-4-5@20250929:${method}`, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    body: {
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 256,
      messages: [{ role: 'user', content: 'Hello Vertex' }],
      ...body,
    },
  });
}

describe('the fake token endpoint', () => {
  it('issues a bearer token for an assertion signed with the key, and counts exchanges', async () => {
    const before = vertex.tokens.exchanges;
    const answer = await exchange(assertion());
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(answer.body.access_token).toMatch(/^ya29\./);
    expect(vertex.tokens.exchanges).toBe(before + 1);
  });

  it('refuses an assertion signed with another key, addressed elsewhere or expired', async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    const before = vertex.tokens.exchanges;
    for (const jwt of [
      assertion({}, other),
      assertion({ aud: 'https://oauth2.googleapis.com/token' }),
      assertion({ exp: Math.floor(Date.now() / 1000) - 10 }),
      assertion({ scope: 'https://www.googleapis.com/auth/userinfo.email' }),
    ]) {
      const answer = await exchange(jwt);
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_grant');
    }
    expect(vertex.tokens.exchanges).toBe(before);
  });

  it('answers a scripted failure in OAuth shape', async () => {
    vertex.tokens.failExchanges({ status: 503, errorType: 'temporarily_unavailable' });
    const answer = await exchange(assertion());
    expect(answer).toEqual({
      status: 503,
      body: { error: 'temporarily_unavailable', error_description: 'Invalid grant.' },
    });
  });
});

describe('Claude on the fake Vertex AI', () => {
  it('refuses a call without a token it issued, in Google’s shape', async () => {
    for (const token of [undefined, 'ya29.made-up']) {
      const answer = await claude('rawPredict', {}, token);
      expect(answer.status).toBe(401);
      expect(jsonOf(answer)).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    }
  });

  it('answers rawPredict with a message whose model comes from the path', async () => {
    const token = await accessToken();
    fake.enqueue({ output: [{ text: 'Hi from Vertex' }], usage: { input: 12, output: 4 } });
    const answer = await claude('rawPredict', {}, token);
    expect(answer.status).toBe(200);
    expect(jsonOf(answer)).toMatchObject({
      type: 'message',
      model: 'claude-sonnet-4-5@20250929',
      content: [{ type: 'text', text: 'Hi from Vertex' }],
      usage: { input_tokens: 12, output_tokens: 4 },
    });
    expect(fake.requests.at(-1)?.key).toBe(key.client_email);
    expect(vertex.calls.at(-1)).toEqual({
      project: 'fake-project',
      region: 'us-east5',
      publisher: 'anthropic',
      model: 'claude-sonnet-4-5@20250929',
      method: 'rawPredict',
    });
  });

  it('streams Anthropic events from streamRawPredict', async () => {
    const token = await accessToken();
    const answer = await claude('streamRawPredict', { stream: true }, token);
    expect(answer.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = eventDataOf(answer);
    expect(events[0]).toMatchObject({ type: 'message_start' });
    expect(events.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('refuses a body the Vertex publisher would not take, in Anthropic’s shape', async () => {
    const token = await accessToken();
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['rawPredict', { model: 'claude-sonnet-4-5' }, 'model: Extra inputs are not permitted'],
      ['rawPredict', { anthropic_version: '2023-06-01' }, 'anthropic_version'],
      ['streamRawPredict', {}, 'stream'],
      ['rawPredict', { stream: true }, 'stream'],
    ];
    for (const [method, body, message] of cases) {
      const answer = await claude(method, body, token);
      expect(answer.status).toBe(400);
      expect(jsonOf(answer)).toMatchObject({
        type: 'error',
        error: { type: 'invalid_request_error', message: expect.stringContaining(message) },
      });
    }
  });

  it('counts tokens at count-tokens:rawPredict', async () => {
    const token = await accessToken();
    fake.enqueueTokenCount({ inputTokens: 42 });
    const answer = await callFakeUpstream(`${fake.url}${modelPath}/count-tokens:rawPredict`, {
      headers: { authorization: `Bearer ${token}` },
      body: {
        anthropic_version: 'vertex-2023-10-16',
        model: 'claude-sonnet-4-5@20250929',
        messages: [{ role: 'user', content: 'Count me' }],
      },
    });
    expect(jsonOf(answer)).toEqual({ input_tokens: 42 });
  });

  it('throttles a service account with RESOURCE_EXHAUSTED', async () => {
    const token = await accessToken();
    fake.behaveForKey(key.client_email, { status: 429 });
    const answer = await claude('rawPredict', {}, token);
    expect(answer.status).toBe(429);
    expect(jsonOf(answer)).toMatchObject({ error: { code: 429, status: 'RESOURCE_EXHAUSTED' } });
  });

  it('keeps a prompt cache per service account', async () => {
    const token = await accessToken();
    const body = {
      system: [
        {
          type: 'text',
          text: 'A long system prompt. '.repeat(40),
          cache_control: { type: 'ephemeral' },
        },
      ],
    };
    const first = jsonOf(await claude('rawPredict', body, token));
    const second = jsonOf(await claude('rawPredict', body, token));
    expect(first.usage.cache_creation_input_tokens).toBeGreaterThan(0);
    expect(second.usage.cache_read_input_tokens).toBe(first.usage.cache_creation_input_tokens);
  });
});
