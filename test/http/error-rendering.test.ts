import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminToken, startTestGateway, type TestGateway } from '../support/test-gateway.ts';

describe('error rendering: shape B on message-style routes, shape A elsewhere', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ server: { bodyLimitBytes: 1024 } });
  });
  afterAll(async () => gateway.close());

  const admin = { authorization: `Bearer ${adminToken}` };

  it('answers unknown message-style paths in shape B and others in shape A', async () => {
    const messages = await gateway.app.inject({ method: 'GET', url: '/v1/messages/nothing' });
    expect(messages.statusCode).toBe(404);
    expect(messages.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const other = await gateway.app.inject({ method: 'GET', url: '/v1/nothing' });
    expect(other.statusCode).toBe(404);
    expect(other.json().type).toBeUndefined();
    expect(other.json().error).toMatchObject({ type: 'not_found_error', code: 'not_found' });
  });

  it('says where malformed JSON broke', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/api/admin/accounts',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: '{"name": "x",,}',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_json');
    expect(response.json().error.message).toMatch(/position \d+|line \d+|column \d+/);
  });

  it('answers 413 for a body over the limit and 415 for a wrong content type', async () => {
    const large = await gateway.app.inject({
      method: 'POST',
      url: '/api/admin/accounts',
      headers: { ...admin, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(4096) }),
    });
    expect(large.statusCode).toBe(413);
    expect(large.json().error.type).toBe('request_too_large');
    const wrongType = await gateway.app.inject({
      method: 'POST',
      url: '/api/admin/accounts',
      headers: { ...admin, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(wrongType.statusCode).toBe(415);
  });

  it('names the failing field of an invalid body', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/api/admin/accounts',
      headers: admin,
      payload: { name: '' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.message).toContain('body.name');
  });

  it('puts a request id on every response', async () => {
    const response = await gateway.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.headers['request-id']).toMatch(/^req_[0-9a-f]{24}$/);
    expect(response.headers['x-request-id']).toBe(response.headers['request-id']);
  });
});

describe('JSON content types', () => {
  it('accepts application/json with a charset parameter', async () => {
    const gateway = await startTestGateway();
    try {
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/api/admin/accounts',
        headers: {
          authorization: `Bearer ${adminToken}`,
          'content-type': 'application/json; charset=utf-8',
        },
        payload: JSON.stringify({ name: 'x' }),
      });
      expect(response.statusCode).toBe(201);
    } finally {
      await gateway.close();
    }
  });
});

describe("the router's own errors in the catalogue's shapes", () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({});
  });
  afterAll(async () => gateway.close());

  it('answers a malformed percent-encoding in a path with 400 in shape A or B', async () => {
    const other = await gateway.app.inject({ method: 'GET', url: '/v1/models/%E0%A4%A' });
    expect(other.statusCode).toBe(400);
    expect(other.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'invalid_request',
        message: expect.stringContaining('percent'),
      },
    });
    expect(other.headers['request-id']).toMatch(/^req_/);
    const messages = await gateway.app.inject({ method: 'GET', url: '/v1/messages/%zz' });
    expect(messages.statusCode).toBe(400);
    expect(messages.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
  });

  it('answers a path parameter over 100 characters with 414 in shape A', async () => {
    const response = await gateway.app.inject({
      method: 'GET',
      url: `/v1/models/${'a'.repeat(300)}`,
    });
    expect(response.statusCode).toBe(414);
    expect(response.json()).toEqual({
      error: {
        type: 'invalid_request_error',
        code: 'invalid_request',
        message: 'A path segment is longer than 100 characters.',
      },
    });
  });
});
