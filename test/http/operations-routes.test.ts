import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../support/test-gateway.ts';

describe('operations routes', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => gateway.close());

  it("answers HEAD /, Claude Code's HEAD /api/hello and /healthz cheaply", async () => {
    expect((await gateway.app.inject({ method: 'HEAD', url: '/' })).statusCode).toBe(200);
    expect((await gateway.app.inject({ method: 'HEAD', url: '/api/hello' })).statusCode).toBe(200);
    const health = await gateway.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.json()).toEqual({ status: 'ok' });
  });

  it('reports readiness from the store, and 503 once it is unreachable', async () => {
    expect((await gateway.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const original = gateway.store.ping;
    gateway.store.ping = async () => {
      throw new Error('database gone');
    };
    try {
      const response = await gateway.app.inject({ method: 'GET', url: '/readyz' });
      expect(response.statusCode).toBe(503);
    } finally {
      gateway.store.ping = original;
    }
  });

  it('exposes Prometheus metrics labelled by route template', async () => {
    await gateway.app.inject({ method: 'GET', url: '/v1/models' });
    const response = await gateway.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toMatch(
      /switchyard_http_requests_total\{method="GET",route="\/v1\/models",status="200"\} \d+/,
    );
  });
});
