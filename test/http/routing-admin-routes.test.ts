import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminApiTarget, createAdminApiClient } from '../../src/cli/admin-api-client.ts';
import { runCli } from '../../src/cli/run-cli.ts';
import { keyIdOf } from '../../src/catalog/upstream-key.ts';
import {
  adminToken,
  startUpstreamTestBed,
  testModel,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';

/**
 * The router's view through the admin API, the CLI and /metrics: two keys of one provider, two
 * models deployed on it, so each key is a target of each model. The gateway's clock stands still,
 * so every wait the router computes is exact.
 */
describe('routing visibility: GET /api/admin/routing, routing enable, /metrics', () => {
  const secretA = 'sk-routing-admin-secret-aaaa';
  const secretB = 'sk-routing-admin-secret-bbbb';
  const keyA = keyIdOf(secretA);
  const keyB = keyIdOf(secretB);
  const clock = Date.parse('2026-11-27T12:00:00.000Z');
  const target = (model: string, key: string) => `up/${model}-upstream#${key}`;
  let bed: UpstreamTestBed;

  beforeAll(async () => {
    bed = await startUpstreamTestBed({
      providers: {
        up: { kind: 'anthropic', apiKeyEnv: ['ROUTING_ADMIN_KEY_A', 'ROUTING_ADMIN_KEY_B'] },
      },
      models: [testModel('alpha', 'up'), testModel('beta', 'up')],
      env: { ROUTING_ADMIN_KEY_A: secretA, ROUTING_ADMIN_KEY_B: secretB },
      now: () => clock,
      listen: true,
    });
  });
  afterAll(() => bed.close());
  beforeEach(() => bed.fake.reset());

  const admin = (method: 'GET' | 'POST', url: string, authorization = `Bearer ${adminToken}`) =>
    bed.gateway.app.inject({ method, url, headers: { authorization } });
  // Each call its own conversation, so no affinity pin keeps it on the key that last answered.
  let conversations = 0;
  const message = (model = 'alpha') =>
    bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: { 'x-api-key': bed.token, 'anthropic-version': '2023-06-01' },
      payload: {
        model,
        max_tokens: 64,
        messages: [{ role: 'user', content: `conversation ${(conversations += 1)}` }],
      },
    });
  const routing = async () => {
    const answer = await admin('GET', '/api/admin/routing');
    expect(answer.statusCode).toBe(200);
    return { text: answer.body, json: answer.json() as RoutingAnswer };
  };
  const targetOf = (answer: RoutingAnswer, model: string, id: string) =>
    answer.models.find((entry) => entry.id === model)?.targets.find((entry) => entry.id === id);
  const metrics = async () => (await bed.gateway.app.inject({ url: '/metrics' })).body;
  const series = (text: string, name: string, labels: string) =>
    text
      .split('\n')
      .find(
        (line) => line.startsWith(`${name}{${labels}}`) || line.startsWith(`${name}{${labels},`),
      );
  const keysCalled = () => bed.fake.requests.map((request) => request.key);
  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(
      ['--url', bed.origin, ...argv],
      () => Promise.reject(new Error('routing commands never open the store')),
      { stdout: (text) => out.push(text), stderr: (text) => err.push(text) },
      Date.now,
      (url) =>
        createAdminApiClient(
          adminApiTarget(bed.gateway.config, { SWITCHYARD_ADMIN_TOKEN: adminToken }, url),
        ),
    );
    return { code, out: out.join(''), err: err.join('') };
  };

  it('answers 401 without the admin token, or with a client token in its place', async () => {
    for (const [method, url] of [
      ['GET', '/api/admin/routing'],
      ['POST', `/api/admin/routing/targets/${keyA}/enable`],
      ['POST', '/api/admin/routing/reset'],
    ] as const) {
      expect((await bed.gateway.app.inject({ method, url })).statusCode).toBe(401);
      expect((await admin(method, url, `Bearer ${bed.token}`)).statusCode).toBe(401);
    }
  });

  it("lists every model's targets in routing order with their key ids and variables, all healthy at first", async () => {
    const { json } = await routing();
    expect(json.pinned_sessions).toBe(0);
    expect(json.models.map((model) => [model.id, model.targets.map((entry) => entry.id)])).toEqual([
      ['alpha', [target('alpha', keyA), target('alpha', keyB)]],
      ['beta', [target('beta', keyA), target('beta', keyB)]],
    ]);
    expect(targetOf(json, 'alpha', target('alpha', keyB))).toEqual({
      id: target('alpha', keyB),
      provider: 'up',
      deployment: 'up/alpha-upstream',
      priority: 0,
      weight: 1,
      key_id: keyB,
      key_env: 'ROUTING_ADMIN_KEY_B',
      state: 'healthy',
      until: null,
      in_flight: 0,
      ttfb_ms: null,
      counters: {
        calls: 0,
        failures: {
          rate_limited: 0,
          server: 0,
          timeout: 0,
          connection: 0,
          refused: 0,
          quota: 0,
          context: 0,
          client: 0,
        },
        cooldowns: 0,
        circuit_opens: 0,
        affinity_hits: 0,
      },
    });
  });

  it('shows a key refused with 401 as disabled:refused for every target using it, and enabling the target brings it back', async () => {
    bed.fake.behaveForKey(secretA, { status: 401 });
    const first = await message();
    expect(first.statusCode, first.body).toBe(200);
    expect(keysCalled()).toEqual([secretA, secretB]);

    const { text, json } = await routing();
    // The conversation stays on the key that answered it.
    expect(json.pinned_sessions).toBe(1);
    const refused = targetOf(json, 'alpha', target('alpha', keyA));
    expect(refused).toMatchObject({
      state: 'disabled:refused',
      // routing.disabledProbeSeconds: 300.
      until: new Date(clock + 300_000).toISOString(),
      counters: { calls: 1, failures: { refused: 1 } },
    });
    // The key's fault: beta's target on it is out too, without having been called.
    expect(targetOf(json, 'beta', target('beta', keyA))).toMatchObject({
      state: 'disabled:refused',
      counters: { calls: 0 },
    });
    expect(targetOf(json, 'alpha', target('alpha', keyB))).toMatchObject({
      state: 'healthy',
      counters: { calls: 1 },
    });
    expect(targetOf(json, 'alpha', target('alpha', keyB))?.ttfb_ms).toBeTypeOf('number');

    const scraped = await metrics();
    const labelsA = `provider="up",deployment="up/alpha-upstream",key="${keyA}"`;
    expect(series(scraped, 'switchyard_routing_disabled', `${labelsA},reason="refused"`)).toMatch(
      / 1$/,
    );
    expect(series(scraped, 'switchyard_routing_disabled', `${labelsA},reason="quota"`)).toMatch(
      / 0$/,
    );
    expect(
      series(scraped, 'switchyard_routing_failures_total', `${labelsA},class="refused"`),
    ).toMatch(/ 1$/);
    expect(series(scraped, 'switchyard_routing_calls_total', labelsA)).toMatch(/ 1$/);
    for (const body of [text, scraped]) {
      expect(body).not.toContain(secretA);
      expect(body).not.toContain(secretB);
    }

    // While disabled, calls skip the key.
    bed.fake.requests.length = 0;
    expect((await message()).statusCode).toBe(200);
    expect(keysCalled()).toEqual([secretB]);

    bed.fake.clearKeyBehaviour(secretA);
    const unknown = await admin(
      'POST',
      `/api/admin/routing/targets/${encodeURIComponent('up/none#k00000000')}/enable`,
    );
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.type).toBe('not_found_error');
    // A key pasted in place of its id is not found, and not echoed.
    const pasted = await admin('POST', `/api/admin/routing/targets/${secretA}/enable`);
    expect(pasted.statusCode).toBe(404);
    expect(pasted.body).not.toContain(secretA);

    const enabled = await admin(
      'POST',
      `/api/admin/routing/targets/${encodeURIComponent(target('alpha', keyA))}/enable`,
    );
    expect(enabled.statusCode, enabled.body).toBe(200);
    expect(enabled.json().enabled).toMatchObject([
      { id: target('alpha', keyA), state: 'healthy', until: null },
    ]);
    expect(enabled.body).not.toContain(secretA);
    // The key is enabled for every target using it.
    expect(targetOf((await routing()).json, 'beta', target('beta', keyA))?.state).toBe('healthy');
    expect(
      series(await metrics(), 'switchyard_routing_disabled', `${labelsA},reason="refused"`),
    ).toMatch(/ 0$/);

    bed.fake.requests.length = 0;
    for (let call = 0; call < 2; call += 1) expect((await message()).statusCode).toBe(200);
    expect(keysCalled()).toContain(secretA);
  });

  it('shows a 429 as cooling until its retry-after, counted in the cooldowns', async () => {
    bed.fake.behaveForKey(secretA, { status: 429, headers: { 'retry-after': '30' } });
    expect((await message()).statusCode).toBe(200);
    expect(keysCalled()).toEqual([secretA, secretB]);

    const { json } = await routing();
    expect(targetOf(json, 'alpha', target('alpha', keyA))).toMatchObject({
      state: 'cooling',
      until: new Date(clock + 30_000).toISOString(),
      counters: { cooldowns: 1, failures: { rate_limited: 1 } },
    });
    // A cooldown is the target's own: the key's other target is not cooling.
    expect(targetOf(json, 'beta', target('beta', keyA))?.state).toBe('healthy');

    const scraped = await metrics();
    const labelsA = `provider="up",deployment="up/alpha-upstream",key="${keyA}"`;
    expect(series(scraped, 'switchyard_routing_cooling', labelsA)).toMatch(/ 1$/);
    expect(series(scraped, 'switchyard_routing_cooldowns_total', labelsA)).toMatch(/ 1$/);
    expect(series(scraped, 'switchyard_routing_circuit_open', labelsA)).toMatch(/ 0$/);

    // An operator's reset forgets it.
    const reset = await admin('POST', '/api/admin/routing/reset');
    expect(reset.statusCode).toBe(200);
    expect(targetOf((await routing()).json, 'alpha', target('alpha', keyA))).toMatchObject({
      state: 'healthy',
      until: null,
      counters: { calls: 0, cooldowns: 0 },
    });
  });

  it('prints the table with `routing health` and re-enables a key by its id with `routing enable`', async () => {
    bed.fake.behaveForKey(secretA, { status: 401 });
    expect((await message('beta')).statusCode).toBe(200);

    const health = await cli('routing', 'health');
    expect(health.code, health.err).toBe(0);
    const line = health.out.split('\n').find((text) => text.includes(target('beta', keyA)));
    expect(line).toContain('ROUTING_ADMIN_KEY_A');
    expect(line).toContain('disabled:refused');
    expect(line).toContain(new Date(clock + 300_000).toISOString());
    expect(line).toContain('refused 1');
    expect(health.out).toContain('pinned sessions: 1');
    expect(health.out).not.toContain(secretA);

    bed.fake.clearKeyBehaviour(secretA);
    const enabled = await cli('routing', 'enable', keyA);
    expect(enabled.code, enabled.err).toBe(0);
    expect(enabled.out).toContain(`enabled ${target('alpha', keyA)} (healthy)`);
    expect(enabled.out).toContain(`enabled ${target('beta', keyA)} (healthy)`);

    bed.fake.requests.length = 0;
    for (let call = 0; call < 2; call += 1) expect((await message('beta')).statusCode).toBe(200);
    expect(keysCalled()).toContain(secretA);

    // A target id holds `/` and `#`: the CLI sends it as one encoded path segment.
    const one = await cli('routing', 'enable', target('beta', keyB));
    expect(one.code, one.err).toBe(0);
    expect(one.out).toBe(`enabled ${target('beta', keyB)} (healthy)\n`);

    const unknown = await cli('routing', 'enable', 'k00000000');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('404');
  });
});

interface RoutingAnswer {
  models: Array<{
    id: string;
    targets: Array<{ id: string; state: string; ttfb_ms: number | null }>;
  }>;
  pinned_sessions: number;
}
