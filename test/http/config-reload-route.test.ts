import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load-config.ts';
import { startFakeUpstream, type FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import {
  adminToken,
  settledUsageRecord,
  startTestGateway,
  testModel,
  type TestGateway,
} from '../support/test-gateway.ts';

/**
 * POST /api/admin/config/reload: the configuration file read again through the admin API. The
 * "file" here is an object the test rewrites; the child-process suite (test/operator/) reads a
 * real one on SIGHUP.
 */
describe('POST /api/admin/config/reload', () => {
  let fake: FakeUpstream;
  let gateway: TestGateway;
  let file: Record<string, unknown>;
  let token: string;
  let accountId: string;

  const provider = (apiKeyEnv: string) => ({
    up: { kind: 'anthropic', baseUrl: fake.url, apiKeyEnv },
  });
  const first = (input: number, output: number) =>
    testModel('first', 'up', { pricing: { input, output } });

  beforeAll(async () => {
    // The upstream only takes the second key, which the first configuration does not name.
    fake = await startFakeUpstream({ requireKey: 'reload-key-b' });
    file = { providers: provider('RELOAD_TEST_KEY_A'), models: [first(1, 2)] };
    gateway = await startTestGateway(file, {
      env: { RELOAD_TEST_KEY_A: 'reload-key-a', RELOAD_TEST_KEY_B: 'reload-key-b' },
      readConfig: () => parseConfig({ ...file, dataDir: gateway.config.dataDir }),
    });
    ({ token, accountId } = await gateway.createToken({ credits: 1_000_000_000 }));
  });
  afterAll(async () => {
    await gateway.close();
    await fake.close();
  });

  const reload = (authorization?: string) =>
    gateway.app.inject({
      method: 'POST',
      url: '/api/admin/config/reload',
      headers: authorization === undefined ? {} : { authorization },
    });
  const listedModels = async () =>
    (
      await gateway.app.inject({
        method: 'GET',
        url: '/v1/models',
        headers: { authorization: `Bearer ${token}` },
      })
    )
      .json()
      .data.map((model: { id: string }) => model.id);
  const message = (model: string) =>
    gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': token, 'anthropic-version': '2023-06-01' },
      payload: { model, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] },
    });
  const logLines = () => gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>);

  it('answers 401 without the admin token, or with a client token in its place', async () => {
    expect((await reload()).statusCode).toBe(401);
    expect((await reload(`Bearer ${token}`)).statusCode).toBe(401);
    expect(logLines().some((line) => String(line.msg).startsWith('configuration reload'))).toBe(
      false,
    );
  });

  it('swaps models, prices and provider keys, and answers what changed', async () => {
    // The running key is refused upstream.
    expect((await message('first')).statusCode).toBeGreaterThanOrEqual(500);

    file = {
      providers: provider('RELOAD_TEST_KEY_B'),
      models: [first(10, 20), testModel('second', 'up')],
    };
    const answer = await reload(`Bearer ${adminToken}`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({
      reloaded: true,
      changed: {
        models: { added: ['second'], removed: [], changed: ['first'] },
        providers: { added: [], removed: [], changed: ['up'] },
        sections: ['models', 'providers'],
      },
      restart_needed: [],
      unset_key_variables: [],
    });
    expect(await listedModels()).toEqual(['first', 'second']);

    fake.enqueue({ output: [{ text: 'hello' }], usage: { input: 1_000, output: 1_000 } });
    const priced = await message('first');
    expect(priced.statusCode, priced.body).toBe(200);
    // 1 000 tokens at 10 and 1 000 at 20 credits per million: the new prices.
    expect((await settledUsageRecord(gateway, accountId)).cost).toBe(30_000);
    expect(fake.requests.at(-1)?.headers['x-api-key']).toBe('reload-key-b');
    expect((await message('second')).statusCode).toBe(200);

    const line = logLines().find((entry) => entry.msg === 'configuration reloaded');
    expect(line).toMatchObject({ level: 30, via: 'admin API' });
    expect(JSON.stringify(gateway.logs)).not.toContain('reload-key-b');
  });

  it('refuses an invalid file with the reason, logged, and keeps the running catalog', async () => {
    file = {
      providers: provider('RELOAD_TEST_KEY_B'),
      models: [testModel('third', 'missing')],
    };
    const answer = await reload(`Bearer ${adminToken}`);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error.type).toBe('invalid_request_error');
    expect(answer.json().error.message).toContain('no provider named "missing"');
    const refused = logLines().find((entry) => String(entry.msg).includes('reload refused'));
    expect(refused).toMatchObject({ level: 50 });
    expect(String(refused?.reason)).toContain('no provider named "missing"');
    expect(await listedModels()).toEqual(['first', 'second']);
    expect((await message('second')).statusCode).toBe(200);
  });

  it('names the changes that need a restart and applies the rest', async () => {
    const running = gateway.config.server.port;
    file = {
      server: { port: running + 1 },
      limits: { token: { requestsPerMinute: 5 } },
      providers: provider('RELOAD_TEST_KEY_UNSET'),
      models: [testModel('second', 'up')],
    };
    const answer = await reload(`Bearer ${adminToken}`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json().restart_needed).toEqual(['server.port', 'limits.token']);
    expect(answer.json().changed.models).toEqual({
      added: [],
      removed: ['first'],
      changed: [],
    });
    // The variable is named, its value (none here) never.
    expect(answer.json().unset_key_variables).toEqual([
      { provider: 'up', api_key_env: 'RELOAD_TEST_KEY_UNSET' },
    ]);
    expect(await listedModels()).toEqual(['second']);
    const line = logLines().findLast((entry) =>
      String(entry.msg).startsWith('configuration reloaded'),
    );
    expect(line).toMatchObject({ level: 40, restartNeeded: ['server.port', 'limits.token'] });
  });
});
