import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compactionInstruction } from '../../src/compaction/compaction-instruction.ts';
import { compactionTokenPrefix } from '../../src/compaction/compaction-seal.ts';
import {
  compactionModels,
  conversation,
  expectedCost,
  shellTool,
  startCompactionTestBed,
  summaryText,
  type CompactionTestBed,
} from './compaction-test-bed.ts';

interface CompactedBody {
  id: string;
  object: string;
  created_at: number;
  output: Array<Record<string, unknown>>;
  usage: Record<string, unknown>;
}

const instructionStart = compactionInstruction.split('\n')[0] as string;

/** The text of every part of a chat or message-style message, in order. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { text?: unknown }) => String(part.text ?? '')).join('');
}

describe('POST /v1/responses/compact when the gateway compacts', () => {
  let bed: CompactionTestBed;

  beforeAll(async () => {
    bed = await startCompactionTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });
  beforeEach(() => bed.fake.reset());

  const post = (token: string, url: string, body: unknown) =>
    bed.gateway.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload: body as object,
    });

  async function compact(token: string, model: string, url = '/v1/responses/compact') {
    bed.fake.enqueue({ output: [{ text: summaryText }], usage: { input: 1200, output: 80 } });
    const response = await post(token, url, {
      model,
      instructions: 'You are a coding agent.',
      input: conversation,
      tools: [shellTool],
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<CompactedBody>();
  }

  const routes = [
    { dialect: 'chat', model: compactionModels.chat, path: '/v1/chat/completions' },
    { dialect: 'anthropic', model: compactionModels.anthropic, path: '/v1/messages' },
  ];

  for (const { dialect, model, path } of routes) {
    describe(`through a ${dialect}-style upstream`, () => {
      it('sends the summary turn, answers the compacted history and bills it as a call', async () => {
        const credits = 10_000_000;
        const { token, accountId } = await bed.gateway.createToken({ credits });
        const body = await compact(token, model);

        expect(body).toMatchObject({ object: 'response.compaction' });
        expect(body.id).toMatch(/^resp_/);
        expect(typeof body.created_at).toBe('number');
        const [first, second, item] = body.output;
        expect(body.output).toHaveLength(3);
        expect(first).toMatchObject({ type: 'message', ...conversation[0] });
        expect(second).toMatchObject({ type: 'message', ...conversation[4] });
        expect(item).toMatchObject({ type: 'compaction', id: expect.stringMatching(/^cmp_/) });
        expect(String(item?.encrypted_content)).toMatch(new RegExp(`^${compactionTokenPrefix}`));
        expect(JSON.stringify(item)).not.toContain('parseCsv');
        expect(body.usage).toMatchObject({ input_tokens: 1200, output_tokens: 80 });

        expect(bed.fake.requests).toHaveLength(1);
        const sent = bed.fake.requests[0];
        expect(sent?.path).toBe(path);
        const upstream = sent?.body as {
          messages: Array<{ role: string; content: unknown }>;
          system?: unknown;
          tool_choice?: unknown;
        };
        const last = upstream.messages.at(-1);
        expect(last?.role).toBe('user');
        expect(textOf(last?.content)).toContain(instructionStart);
        expect(sent?.rawBody).toContain('Rename the function parse to parseCsv.');
        expect(sent?.rawBody).toContain('call_grep');
        if (dialect === 'chat') {
          expect(upstream.tool_choice).toBe('none');
          expect(upstream.messages[0]).toMatchObject({ role: 'system' });
          expect(textOf(upstream.messages[0]?.content)).toBe('You are a coding agent.');
        } else {
          expect(upstream.tool_choice).toEqual({ type: 'none' });
          expect(JSON.stringify(upstream.system)).toContain('You are a coding agent.');
        }

        const records = await bed.gateway.store.usage.listUsage(accountId, 10);
        expect(records).toHaveLength(1);
        const cost = expectedCost(1200, 80);
        expect(records[0]).toMatchObject({
          surface: 'responses',
          model,
          inputTokens: 1200,
          outputTokens: 80,
          outcome: 'ok',
          status: 200,
          cost,
        });
        const balance = await bed.gateway.store.ledger.getBalance(accountId);
        expect(balance).toMatchObject({ balance: credits - cost, held: 0 });
      });

      it('expands the item on a later request, before translation', async () => {
        const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
        const { output } = await compact(token, model);
        bed.fake.reset();
        const next = await post(token, '/v1/responses', {
          model,
          input: [...output, { role: 'user', content: 'Go on.' }],
        });
        expect(next.statusCode, next.body).toBe(200);
        const sent = bed.fake.requests[0]?.body as {
          messages: Array<{ role: string; content: unknown }>;
        };
        expect(bed.fake.requests[0]?.rawBody).not.toContain(compactionTokenPrefix);
        const carrying = sent.messages.filter((message) =>
          textOf(message.content).includes(summaryText),
        );
        expect(carrying).toHaveLength(1);
        expect(carrying[0]?.role).toBe('user');
        expect(textOf(carrying[0]?.content)).toContain('compacted');
      });
    });
  }

  it('keeps a gateway item usable on another route: compacted on chat, continued on anthropic', async () => {
    const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
    const { output } = await compact(token, compactionModels.chat);
    bed.fake.reset();
    const next = await post(token, '/v1/responses', {
      model: compactionModels.anthropic,
      input: [...output, { role: 'user', content: 'Go on.' }],
    });
    expect(next.statusCode, next.body).toBe(200);
    expect(bed.fake.requests[0]?.path).toBe('/v1/messages');
    expect(bed.fake.requests[0]?.rawBody).toContain(summaryText);
  });

  it('answers on the alias without /v1 too', async () => {
    const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
    const body = await compact(token, compactionModels.chat, '/responses/compact');
    expect(body.output.at(-1)).toMatchObject({ type: 'compaction' });
  });

  describe('refuses an item it cannot open with 400, naming the item, and calls no upstream', () => {
    let token: string;
    let item: Record<string, unknown>;
    beforeAll(async () => {
      ({ token } = await bed.gateway.createToken({ credits: 10_000_000 }));
      item = (await compact(token, compactionModels.chat)).output.at(-1) as Record<string, unknown>;
    });

    function tampered(): Record<string, unknown> {
      const encoded = String(item.encrypted_content).slice(compactionTokenPrefix.length);
      const bytes = Buffer.from(encoded, 'base64url');
      bytes[bytes.length - 5] = (bytes[bytes.length - 5] as number) ^ 0x40;
      return { ...item, encrypted_content: compactionTokenPrefix + bytes.toString('base64url') };
    }

    const cases: Array<[string, () => Promise<{ token: string; item: unknown }>, RegExp]> = [
      ['a flipped byte', async () => ({ token, item: tampered() }), /altered/],
      [
        'an item of another account',
        async () => ({
          token: (await bed.gateway.createToken({ credits: 10_000_000 })).token,
          item,
        }),
        /belongs to another account/,
      ],
      [
        'an unknown format',
        async () => ({ token, item: { type: 'compaction', encrypted_content: 'gAAAAABnot-ours' } }),
        /unknown format/,
      ],
    ];

    for (const url of ['/v1/responses', '/v1/responses/compact']) {
      for (const [name, make, message] of cases) {
        it(`${name} on ${url}`, async () => {
          bed.fake.reset();
          const sent = await make();
          const response = await post(sent.token, url, {
            model: compactionModels.chat,
            input: [{ role: 'user', content: 'hi' }, sent.item, { role: 'user', content: 'go' }],
          });
          expect(response.statusCode, response.body).toBe(400);
          const { error } = response.json<{
            error: { type: string; message: string; details: unknown };
          }>();
          expect(error.type).toBe('invalid_request_error');
          expect(error.details).toEqual({ param: 'input[1]' });
          expect(error.message).toMatch(/^input\[1\]: /);
          expect(error.message).toMatch(message);
          expect(bed.fake.requests).toHaveLength(0);
        });
      }
    }
  });

  it('refuses a request with nothing to compact, and a trigger inside a compact body', async () => {
    const { token } = await bed.gateway.createToken({ credits: 10_000_000 });
    const empty = await post(token, '/v1/responses/compact', { model: compactionModels.chat });
    expect(empty.statusCode).toBe(400);
    const trigger = await post(token, '/v1/responses/compact', {
      model: compactionModels.chat,
      input: [{ role: 'user', content: 'hi' }, { type: 'compaction_trigger' }],
    });
    expect(trigger.statusCode).toBe(400);
    expect(trigger.json<{ error: { details: unknown } }>().error.details).toEqual({
      param: 'input[1]',
    });
    expect(bed.fake.requests).toHaveLength(0);
  });

  it('authenticates like /v1/responses: a token without inference:create is refused', async () => {
    const { token } = await bed.gateway.createToken({
      credits: 10_000_000,
      permissions: ['model:read'],
    });
    const response = await post(token, '/v1/responses/compact', {
      model: compactionModels.chat,
      input: 'hi',
    });
    expect(response.statusCode).toBe(401);
    expect(bed.fake.requests).toHaveLength(0);
  });

  it('refuses with 402 when the balance cannot cover the summary turn, and records it', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits: 1 });
    const response = await post(token, '/v1/responses/compact', {
      model: compactionModels.anthropic,
      input: conversation,
      tools: [shellTool],
    });
    expect(response.statusCode).toBe(402);
    expect(bed.fake.requests).toHaveLength(0);
    const [record] = await bed.gateway.store.usage.listUsage(accountId, 1);
    expect(record).toMatchObject({ outcome: 'refused', status: 402, cost: 0 });
  });
});
