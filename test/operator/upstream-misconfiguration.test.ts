import { describe, expect, it } from 'vitest';

import { startFakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';

const upstreamKey = 'misconfiguration-upstream-key';
const unsetVariable = 'SWITCHYARD_TEST_KEY_NOBODY_SET';

const logLines = (gateway: TestGateway) =>
  gateway.logs.map((line) => JSON.parse(line) as Record<string, unknown>);

const chat = (gateway: TestGateway, token: string, model: string) =>
  gateway.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: { model, messages: [{ role: 'user', content: 'hi' }] },
  });

/** docs/decisions/0111: what an operator's first configuration mistakes look like in the log. */
describe('a provider configured wrongly', () => {
  const warnings: Array<{ message: string; fields: Record<string, unknown> }> = [];
  const bed = useTestBed(async () => {
    delete process.env[unsetVariable];
    const fake = await startFakeUpstream({ requireKey: upstreamKey });
    const gateway = await startTestGateway(
      {
        providers: {
          keyless: { kind: 'openai-chat', baseUrl: fake.url, apiKeyEnv: unsetVariable },
          doubled: { kind: 'openai-chat', baseUrl: `${fake.url}/v1`, apiKeyEnv: 'GOOD_KEY' },
          failing: { kind: 'openai-chat', baseUrl: fake.url, apiKeyEnv: 'GOOD_KEY' },
        },
        search: {
          providers: [
            { id: 'keyless-search', kind: 'tavily', baseUrl: fake.url, apiKeyEnv: unsetVariable },
          ],
        },
        models: [
          testModel('via-keyless', 'keyless'),
          testModel('via-doubled', 'doubled'),
          testModel('via-failing', 'failing'),
        ],
      },
      {
        env: { GOOD_KEY: upstreamKey },
        warn: (message, fields) => warnings.push({ message, fields }),
      },
    );
    const { token } = await gateway.createToken({ credits: 1_000_000_000 });
    return {
      gateway,
      token,
      fake,
      async close() {
        await gateway.close();
        await fake.close();
      },
    };
  });

  it('warns at start, naming each provider and the unset variable, once', () => {
    const about = warnings.filter((warning) => warning.message.includes(unsetVariable));
    expect(about.map((warning) => warning.fields)).toEqual([
      { provider: 'keyless', apiKeyEnv: unsetVariable },
      { provider: 'keyless-search', apiKeyEnv: unsetVariable },
    ]);
    expect(warnings.some((warning) => warning.message.includes('GOOD_KEY'))).toBe(false);
  });

  it('logs the missing variable as the cause of each refused call, at warn, without a stack', async () => {
    const first = await chat(bed.gateway, bed.token, 'via-keyless');
    expect(first.statusCode).toBe(502);
    expect(first.json().error.message).toContain("refused the gateway's credentials");
    // The client is not told about the gateway's environment.
    expect(first.body).not.toContain(unsetVariable);
    const line = logLines(bed.gateway).find(
      (entry) => entry.requestId === first.headers['request-id'] && entry.provider !== undefined,
    );
    expect(line).toMatchObject({
      level: 40,
      msg: 'upstream call failed',
      provider: 'keyless',
      upstreamStatus: 401,
      upstreamPath: '/v1/chat/completions',
      failure: 'refused',
    });
    expect(line?.cause).toContain(unsetVariable);
    expect(line?.err).toBeUndefined();

    // The refused key is out of rotation (docs/routing.md): the next call is not sent, and the
    // log still names the variable.
    const calls = bed.fake.requests.length;
    const second = await chat(bed.gateway, bed.token, 'via-keyless');
    expect(second.statusCode).toBe(503);
    expect(second.json().error.code).toBe('upstream_unavailable');
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(0);
    expect(second.body).not.toContain(unsetVariable);
    expect(bed.fake.requests.length).toBe(calls);
    const refusedLine = logLines(bed.gateway).find(
      (entry) => entry.requestId === second.headers['request-id'] && entry.provider !== undefined,
    );
    expect(refusedLine).toMatchObject({ level: 40, provider: 'keyless' });
    expect(refusedLine?.cause).toContain(unsetVariable);
    expect(refusedLine?.cause).toContain('out of rotation (refused)');
  });

  it('answers an upstream 404 from a baseUrl ending in /v1 with 502, and logs the path it called', async () => {
    const response = await chat(bed.gateway, bed.token, 'via-doubled');
    expect(response.statusCode).toBe(502);
    expect(response.json().error).toMatchObject({ type: 'api_error', code: 'upstream_error' });
    expect(response.json().error.message).not.toContain('Upstream rejected the request');
    const line = logLines(bed.gateway).find(
      (entry) => entry.requestId === response.headers['request-id'] && entry.provider !== undefined,
    );
    expect(line).toMatchObject({
      level: 40,
      provider: 'doubled',
      upstreamStatus: 404,
      upstreamPath: '/v1/v1/chat/completions',
    });
    expect(line?.cause).toContain('baseUrl');
  });

  it('logs an upstream 5xx as one warn line with provider, status and cause, never an error with a stack', async () => {
    bed.fake.enqueue({ status: 500, errorMessage: 'upstream exploded' });
    const response = await chat(bed.gateway, bed.token, 'via-failing');
    expect(response.statusCode).toBe(502);
    const lines = logLines(bed.gateway).filter(
      (entry) => entry.requestId === response.headers['request-id'],
    );
    expect(lines.filter((entry) => (entry.level as number) >= 50)).toEqual([]);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 40,
        provider: 'failing',
        upstreamStatus: 500,
        cause: 'upstream exploded',
      }),
    );
    expect(bed.gateway.logs.join('\n')).not.toContain(upstreamKey);
  });
});
