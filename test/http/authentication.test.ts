import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

describe('client token authentication', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({
      providers: { up: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9' } },
      models: [testModel('model-a', 'up')],
    });
  });
  afterAll(async () => gateway.close());

  const listModels = (headers: Record<string, string | undefined>, url = '/v1/models') =>
    gateway.app.inject({ method: 'GET', url, headers });

  it('accepts the token in x-api-key and in Authorization: Bearer', async () => {
    const { token } = await gateway.createToken();
    for (const headers of [{ 'x-api-key': token }, { authorization: `Bearer ${token}` }]) {
      const response = await listModels(headers);
      expect(response.statusCode).toBe(200);
      expect(response.json().data.map((model: { id: string }) => model.id)).toEqual(['model-a']);
    }
  });

  it('refuses a provider-style key with 401 naming the expected format', async () => {
    const response = await listModels({ 'x-api-key': 'sk-ant-api03-abcdef' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.type).toBe('authentication_error');
    expect(response.json().error.message).toContain('"sy_"');
  });

  it('refuses a token whose checksum is wrong without looking it up', async () => {
    const { token } = await gateway.createToken();
    const last = token.at(-1) === 'A' ? 'B' : 'A';
    const response = await listModels({ 'x-api-key': token.slice(0, -1) + last });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('malformed_token');
  });

  it('refuses a well-formed token that was never issued', async () => {
    const { generateClientToken } = await import('../../src/auth/client-token.ts');
    const response = await listModels({ 'x-api-key': generateClientToken().token });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('invalid_token');
  });

  it('refuses a disabled token at once when disabled through the admin API', async () => {
    const { token, apiKeyId } = await gateway.createToken();
    expect((await listModels({ 'x-api-key': token })).statusCode).toBe(200);
    const disable = await gateway.app.inject({
      method: 'POST',
      url: `/api/admin/tokens/${apiKeyId}/disable`,
      headers: { authorization: 'Bearer admin-secret-for-tests' },
    });
    expect(disable.statusCode).toBe(200);
    const response = await listModels({ 'x-api-key': token });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('disabled_token');
  });

  it('refuses an expired token', async () => {
    const { token } = await gateway.createToken({ expiresAt: Date.now() + 50 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    const response = await listModels({ 'x-api-key': token });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('expired_token');
  });

  it('refuses a token without the route permission with 401', async () => {
    const { token } = await gateway.createToken({ permissions: ['inference:create'] });
    const response = await listModels({ authorization: `Bearer ${token}` });
    expect(response.statusCode).toBe(401);
    expect(response.json().error.code).toBe('permission_denied');
    expect(response.json().error.message).toContain('model:read');
  });

  it('answers 400 when a connected-interface token is sent to the credits API', async () => {
    const { token } = await gateway.createToken({ interface: 'connected', isAdmin: true });
    const response = await listModels({ 'x-api-key': token });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('wrong_interface');
  });

  it('lists the public catalog without a key and refuses an invalid key', async () => {
    expect((await listModels({})).statusCode).toBe(200);
    expect((await listModels({ authorization: 'Bearer sy_nope' })).statusCode).toBe(401);
  });

  it('refuses a credential in the query string with 400 and keeps it out of the logs', async () => {
    const { token } = await gateway.createToken();
    const response = await listModels({}, `/v1/models?api_key=${token}`);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('credential_in_query');
    expect(gateway.logs.join('\n')).not.toContain(token);
  });

  it('never writes a token into any log line', async () => {
    const { token } = await gateway.createToken();
    gateway.logs.length = 0;
    await listModels({ 'x-api-key': token });
    await listModels({ authorization: `Bearer ${token}` });
    await listModels({ 'x-api-key': `${token}x` });
    await listModels({}, `/v1/models?key=${token}`);
    await gateway.app.inject({
      method: 'GET',
      url: `/nowhere?token=${token}`,
      headers: { 'x-api-key': token },
    });
    expect(gateway.logs.length).toBeGreaterThan(4);
    const secret = token.slice(3);
    for (const line of gateway.logs) expect(line).not.toContain(secret);
  });
});
