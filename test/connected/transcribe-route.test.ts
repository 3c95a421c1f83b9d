import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';
import {
  startFakeConnectedUpstream,
  type FakeConnectedUpstream,
} from './fake-connected-upstream.ts';

const upstreamKey = 'connected-tests-upstream-key';
const upstreamKeyEnv = 'CONNECTED_TESTS_UPSTREAM_KEY';
const maxBodyBytes = 64 * 1024;

/** A multipart body whose file part holds every byte value, so any re-encoding shows. */
function multipartBody(boundary: string): Buffer {
  const bytes = Buffer.from(Array.from({ length: 1024 }, (_, index) => index % 256));
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper-like\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n` +
        'Content-Type: audio/wav\r\n\r\n',
    ),
    bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

describe('POST /transcribe for connected tokens, with a configured upstream', () => {
  let upstream: FakeConnectedUpstream;
  let gateway: TestGateway;
  let origin: string;
  let adminToken: string;
  let creditsToken: string;

  beforeAll(async () => {
    upstream = await startFakeConnectedUpstream();
    process.env[upstreamKeyEnv] = upstreamKey;
    gateway = await startTestGateway({
      connected: {
        transcribe: {
          url: `${upstream.httpUrl}/v1/audio/transcriptions?tier=connected`,
          apiKeyEnv: upstreamKeyEnv,
          maxBodyBytes,
        },
      },
    });
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
    adminToken = (await gateway.createToken({ isAdmin: true, interface: 'connected' })).token;
    creditsToken = (await gateway.createToken({ isAdmin: true })).token;
  });
  afterAll(async () => {
    await gateway.close();
    await upstream.close();
  });
  beforeEach(() => {
    upstream.uploads.length = 0;
    upstream.answer = {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"text":"hello from the connected provider"}',
    };
  });

  async function post(path: string, token: string | undefined, body: Buffer, contentType: string) {
    const response = await request(`${origin}${path}`, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      },
      body,
    });
    return {
      status: response.statusCode,
      headers: response.headers,
      text: await response.body.text(),
    };
  }

  it('refuses a request without a token (401) and never calls the upstream', async () => {
    const response = await post('/transcribe', undefined, Buffer.from('x'), 'text/plain');
    expect(response.status).toBe(401);
    expect(JSON.parse(response.text)).toMatchObject({
      error: { type: 'authentication_error', code: 'missing_token' },
    });
    expect(upstream.uploads).toEqual([]);
  });

  it('refuses a credits token with 400: the token is bound to another interface', async () => {
    const response = await post('/v1/transcribe', creditsToken, Buffer.from('x'), 'text/plain');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text)).toMatchObject({
      error: { type: 'invalid_request_error', code: 'wrong_interface' },
    });
    expect(upstream.uploads).toEqual([]);
  });

  it('refuses a connected token without the audio:create permission (401)', async () => {
    const { token } = await gateway.createToken({
      isAdmin: true,
      interface: 'connected',
      permissions: ['inference:create'],
    });
    const response = await post('/transcribe', token, Buffer.from('x'), 'text/plain');
    expect(response.status).toBe(401);
    expect(JSON.parse(response.text)).toMatchObject({ error: { code: 'permission_denied' } });
  });

  for (const path of ['/transcribe', '/v1/transcribe']) {
    it(`${path} forwards the multipart body byte for byte with its content type`, async () => {
      const boundary = '----switchyard-test-boundary-7MA4YWxkTrZu0gW';
      const body = multipartBody(boundary);
      const contentType = `multipart/form-data; boundary=${boundary}`;
      const response = await post(`${path}?language=fr`, adminToken, body, contentType);

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.text).toBe('{"text":"hello from the connected provider"}');
      expect(upstream.uploads).toHaveLength(1);
      const upload = upstream.uploads[0];
      expect(upload?.method).toBe('POST');
      expect(upload?.url).toBe('/v1/audio/transcriptions?tier=connected&language=fr');
      expect(upload?.headers['content-type']).toBe(contentType);
      expect(upload?.body.equals(body)).toBe(true);
      // The gateway's key goes upstream; the client's token never does.
      expect(upload?.headers.authorization).toBe(`Bearer ${upstreamKey}`);
      expect(JSON.stringify(upload?.headers)).not.toContain(adminToken);
    });
  }

  it('streams the body: the upstream sees the first bytes before the client has finished', async () => {
    const firstChunk = upstream.nextFirstChunk();
    const url = new URL('/transcribe', origin);
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const client = httpRequest(
        url,
        {
          method: 'POST',
          headers: {
            'content-type': 'audio/wav',
            'transfer-encoding': 'chunked',
            authorization: `Bearer ${adminToken}`,
          },
        },
        (response) => {
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      client.on('error', reject);
      client.write(Buffer.from('RIFF-first-part'));
      // Only once the upstream holds the first part does the rest follow: a gateway that
      // buffered the whole body would never get here.
      firstChunk.then(
        (chunk) => {
          expect(chunk.toString()).toBe('RIFF-first-part');
          client.end(Buffer.from('-second-part'));
        },
        (error: unknown) => reject(error as Error),
      );
    });
    const result = await answer;
    expect(result.status).toBe(200);
    expect(upstream.uploads[0]?.body.toString()).toBe('RIFF-first-part-second-part');
    expect(upstream.uploads[0]?.headers['content-type']).toBe('audio/wav');
  });

  it('relays an upstream error answer with its status and retry-after', async () => {
    upstream.answer = {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '7' },
      body: '{"error":{"message":"slow down"}}',
    };
    const response = await post('/transcribe', adminToken, Buffer.from('x'), 'audio/wav');
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.text).toBe('{"error":{"message":"slow down"}}');
  });

  it('answers 413 for a declared length over the limit without calling the upstream', async () => {
    const response = await post(
      '/transcribe',
      adminToken,
      Buffer.alloc(maxBodyBytes + 1),
      'application/octet-stream',
    );
    expect(response.status).toBe(413);
    expect(JSON.parse(response.text)).toMatchObject({ error: { code: 'request_too_large' } });
    expect(upstream.uploads).toEqual([]);
  });

  it('answers 413 when a chunked body grows over the limit', async () => {
    const result = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const client = httpRequest(
        new URL('/transcribe', origin),
        {
          method: 'POST',
          headers: {
            'content-type': 'application/octet-stream',
            'transfer-encoding': 'chunked',
            authorization: `Bearer ${adminToken}`,
          },
        },
        (response) => {
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        },
      );
      client.on('error', reject);
      client.end(Buffer.alloc(maxBodyBytes + 4096));
    });
    expect(result.status).toBe(413);
    expect(JSON.parse(result.body)).toMatchObject({ error: { code: 'request_too_large' } });
  });
});

describe('POST /transcribe without a reachable or configured upstream', () => {
  it('answers 502 when the upstream cannot be reached', async () => {
    const gateway = await startTestGateway({
      connected: { transcribe: { url: 'http://127.0.0.1:9/v1/audio/transcriptions' } },
    });
    try {
      const { token } = await gateway.createToken({ isAdmin: true, interface: 'connected' });
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/transcribe',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'audio/wav' },
        payload: Buffer.from('RIFF'),
      });
      expect(response.statusCode).toBe(502);
      expect(response.json()).toMatchObject({ error: { code: 'upstream_error' } });
    } finally {
      await gateway.close();
    }
  });

  it('answers 404 naming the missing setting, after authentication', async () => {
    const gateway = await startTestGateway();
    try {
      const anonymous = await gateway.app.inject({ method: 'POST', url: '/transcribe' });
      expect(anonymous.statusCode).toBe(401);
      const { token } = await gateway.createToken({ isAdmin: true, interface: 'connected' });
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/v1/transcribe',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'audio/wav' },
        payload: Buffer.from('RIFF'),
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({
        error: { code: 'not_found', message: expect.stringContaining('connected.transcribe.url') },
      });
    } finally {
      await gateway.close();
    }
  });
});
