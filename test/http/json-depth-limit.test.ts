import { beforeEach, describe, expect, it } from 'vitest';
import { maximumJsonDepth } from '../../src/shared/find-deep-json-path.ts';
import { modelPerDialect } from '../support/test-gateway.ts';
import { useUpstreamTestBed } from '../support/use-test-bed.ts';

/**
 * The text of a JSON schema whose `properties.a` nests `levels` times: 2 × levels + 1 objects
 * deep. Built as text, since JSON.stringify itself fails on the deepest ones.
 */
function deepSchema(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

/** docs/decisions/0025: deep nesting is refused at the edge with 400, never a RangeError and 500. */
describe('JSON nesting depth limit', () => {
  const bed = useUpstreamTestBed({
    ...modelPerDialect({ anthropic: 'claude', chat: 'gpt' }),
    credits: 10_000_000,
  });
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.logs.length = 0;
  });

  /** `body` with the `"DEEP"` placeholder replaced by a schema `levels` deep. */
  const post = (url: string, body: unknown, levels: number) =>
    bed.gateway.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${bed.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body).replace('"DEEP"', deepSchema(levels)),
    });
  // The schema starts at depth 5: body, tools, 0, function, parameters.
  const chatWithTool = (model: string, levels: number) =>
    post(
      '/v1/chat/completions',
      {
        model,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'deep', parameters: 'DEEP' } }],
      },
      levels,
    );
  // The input starts at depth 6: body, messages, 1, content, 0, input.
  const messagesWithToolUse = (model: string, levels: number) =>
    post(
      '/v1/messages',
      {
        model,
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'hi' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_1', name: 'deep', input: 'DEEP' }],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }],
          },
        ],
      },
      levels,
    );

  it('answers 400 naming the path for a tool schema 3 000 levels deep, on every codec path', async () => {
    for (const send of [
      () => chatWithTool('gpt', 3000),
      () => chatWithTool('claude', 3000),
      () => messagesWithToolUse('claude', 3000),
      () => messagesWithToolUse('gpt', 3000),
    ]) {
      const response = await send();
      expect(response.statusCode).toBe(400);
      const message: string = response.json().error.message;
      expect(message).toContain(`more than ${maximumJsonDepth} levels`);
      expect(message).toMatch(
        /at body\.(tools\.0\.function\.parameters|messages\.1\.content\.0\.input)\.properties\.a\.properties/,
      );
    }
    expect(bed.fake.requests).toHaveLength(0);
    // Level 50 is pino's error level: a client's mistake is not a gateway failure.
    for (const line of bed.gateway.logs) expect(JSON.parse(line).level).toBeLessThan(50);
  });

  it('uses shape B on the message-style routes and names the offending field in shape A', async () => {
    const messages = await messagesWithToolUse('claude', 200);
    expect(messages.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    const chat = await chatWithTool('gpt', 200);
    expect(chat.json().error.code).toBe('json_too_deep');
    expect(chat.json().error.param).toMatch(/^tools\.0\.function\.parameters\.properties\.a/);
  });

  it('serves a body nested just under the limit, same dialect and translated', async () => {
    // 4 + 2 × 61 + 1 = 127 and 5 + 2 × 61 + 1 = 128 levels; one more level is refused.
    for (const model of ['gpt', 'claude']) {
      expect((await chatWithTool(model, 61)).statusCode, model).toBe(200);
      expect((await messagesWithToolUse(model, 61)).statusCode, model).toBe(200);
    }
    expect(bed.fake.requests).toHaveLength(4);
    expect((await messagesWithToolUse('gpt', 62)).statusCode).toBe(400);
    expect(bed.fake.requests).toHaveLength(4);
  });
});
