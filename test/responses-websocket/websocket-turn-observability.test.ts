import { beforeEach, describe, expect, it } from 'vitest';
import { startWebSocketTestBed, turn, wsModels } from './responses-websocket-test-bed.ts';
import { useTestBed } from '../support/use-test-bed.ts';

type LogLine = Record<string, unknown> & { msg?: string; requestId?: string };

/** Polls until `check` passes or two seconds went by. */
async function eventually<T>(check: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * A responses turn over the WebSocket leaves the same completion line in the log and the same
 * metrics as an HTTP request: status, model, tokens, cost, duration, request id.
 */
describe('a responses WebSocket turn is logged and counted like an HTTP request', () => {
  const bed = useTestBed(startWebSocketTestBed);
  beforeEach(() => bed.fake.reset());

  const completionLines = (): LogLine[] =>
    bed.gateway.logs
      .map((line) => JSON.parse(line) as LogLine)
      .filter((line) => line.msg === 'request completed');

  const metrics = async () =>
    (await bed.gateway.app.inject({ method: 'GET', url: '/metrics' })).body;

  it('writes one completion line per turn with the fields of an HTTP request', async () => {
    bed.fake.enqueue({ output: [{ text: 'Over HTTP.' }], usage: { input: 40, output: 7 } });
    const http = await bed.gateway.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: { authorization: `Bearer ${bed.token}` },
      payload: { model: wsModels.chat, input: 'Hi', stream: true, store: false },
    });
    expect(http.statusCode).toBe(200);
    const httpId = http.headers['request-id'] as string;
    const httpLine = await eventually(() => {
      const line = completionLines().find((entry) => entry.requestId === httpId);
      if (line === undefined) throw new Error('no completion line for the HTTP request');
      return line;
    });

    bed.fake.enqueue({ output: [{ text: 'Over WS.' }], usage: { input: 1_000, output: 500 } });
    const socket = bed.connect();
    const events = await turn(socket, { model: wsModels.chat, input: 'Hi', store: false });
    expect(events.at(-1)?.type).toBe('response.completed');
    const wsLine = await eventually(() => {
      const line = completionLines().find(
        (entry) => entry.requestId?.endsWith('.1') === true && entry.model !== undefined,
      );
      if (line === undefined) throw new Error('no completion line for the WebSocket turn');
      return line;
    });

    expect(wsLine).toMatchObject({
      res: { statusCode: 200 },
      model: wsModels.chat,
      outcome: 'ok',
      inputTokens: 1_000,
      outputTokens: 500,
      accountId: bed.accountId,
      attempts: 1,
    });
    // The caller's key by id, never the token; the upstream that answered and how soon.
    expect(wsLine.tokenId).toEqual(expect.any(String));
    expect(JSON.stringify(wsLine)).not.toContain(bed.token);
    expect(wsLine.deployment).toBe(`chat/${wsModels.chat}-upstream`);
    expect(wsLine.ttfbMs).toEqual(expect.any(Number));
    expect(wsLine.requestId).toMatch(/^req_[0-9a-f]+\.1$/);
    expect(wsLine.responseTime).toEqual(expect.any(Number));
    expect(wsLine.costMicroCredits).toBeGreaterThan(0);
    // The cost on the line is what the usage record charged.
    const [record] = await bed.gateway.store.usage.listUsage(bed.accountId, 1);
    expect(record?.requestId).toBe(wsLine.requestId);
    expect(wsLine.costMicroCredits).toBe(record?.cost);

    // Same fields as the HTTP request's line, which now names what it came to as well.
    expect(httpLine).toMatchObject({ res: { statusCode: 200 }, model: wsModels.chat });
    expect(Object.keys(wsLine).sort()).toEqual(Object.keys(httpLine).sort());
  });

  it('counts each turn in the request metrics, by status, beside HTTP requests', async () => {
    const socket = bed.connect();
    bed.fake.enqueue({ output: [{ text: 'Counted.' }], usage: { input: 3, output: 2 } });
    await turn(socket, { model: wsModels.responses, input: 'Hi', store: false });
    // A frame the schema refuses is a request answered 400, as the same HTTP body would be.
    const refused = await turn(socket, { model: wsModels.responses, store: false });
    expect(refused[0]).toMatchObject({ type: 'error', status: 400 });

    await eventually(async () => {
      const text = await metrics();
      expect(text).toMatch(
        /switchyard_http_requests_total\{method="WS",route="\/v1\/responses",status="200"\} [1-9]/,
      );
      expect(text).toMatch(
        /switchyard_http_requests_total\{method="WS",route="\/v1\/responses",status="400"\} [1-9]/,
      );
      expect(text).toMatch(
        /switchyard_http_request_duration_seconds_count\{method="WS",route="\/v1\/responses"\} [2-9]/,
      );
    });
    const refusedLine = completionLines().find(
      (entry) => (entry.res as { statusCode?: number } | undefined)?.statusCode === 400,
    );
    expect(refusedLine?.requestId).toMatch(/^req_[0-9a-f]+\.2$/);
  });
});
