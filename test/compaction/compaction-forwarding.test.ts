import OpenAI from 'openai';
import type { ResponseInput } from 'openai/resources/responses/responses';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { compactionTokenPrefix } from '../../src/compaction/compaction-seal.ts';
import { fakeCompactionContent } from '../fake-upstream/render-responses-compaction.ts';
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
  object: string;
  output: Array<Record<string, unknown>>;
  usage: Record<string, unknown>;
}

const model = compactionModels.forwarding;
const upstreamModel = `${model}-upstream`;

describe('compaction forwarded to an upstream with /v1/responses/compact', () => {
  let bed: CompactionTestBed;
  let token: string;
  let accountId: string;
  const credits = 10_000_000;

  beforeAll(async () => {
    bed = await startCompactionTestBed();
  });
  afterAll(async () => {
    await bed.close();
  });
  beforeEach(async () => {
    bed.fake.reset();
    ({ token, accountId } = await bed.gateway.createToken({ credits }));
  });

  const post = (url: string, body: unknown) =>
    bed.gateway.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${token}` },
      payload: body as object,
    });

  async function compact(): Promise<CompactedBody> {
    bed.fake.enqueue({ usage: { input: 2000, output: 150 } });
    const response = await post('/v1/responses/compact', {
      model,
      instructions: 'You are a coding agent.',
      input: conversation,
      tools: [shellTool],
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<CompactedBody>();
  }

  it('forwards the body, seals the upstream item for the account and bills the usage', async () => {
    const body = await compact();
    const sent = bed.fake.requests[0];
    expect(bed.fake.requests).toHaveLength(1);
    expect(sent?.path).toBe('/v1/responses/compact');
    expect(sent?.body).toEqual({
      model: upstreamModel,
      instructions: 'You are a coding agent.',
      input: conversation,
      tools: [shellTool],
    });

    expect(body.object).toBe('response.compaction');
    const item = body.output.at(-1) as Record<string, unknown>;
    expect(body.output.slice(0, -1).map((entry) => entry.role)).toEqual(['user', 'user']);
    expect(item.type).toBe('compaction');
    const upstreamContent = fakeCompactionContent(String(item.id));
    expect(String(item.encrypted_content).startsWith(compactionTokenPrefix)).toBe(true);
    expect(JSON.stringify(body)).not.toContain(upstreamContent);
    expect(body.usage).toMatchObject({ input_tokens: 2000, output_tokens: 150 });

    const [record] = await bed.gateway.store.usage.listUsage(accountId, 1);
    const cost = expectedCost(2000, 150);
    expect(record).toMatchObject({
      surface: 'responses',
      model,
      deployment: `openai/${upstreamModel}`,
      inputTokens: 2000,
      outputTokens: 150,
      outcome: 'ok',
      cost,
    });
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits - cost,
      held: 0,
    });
  });

  it('gives the upstream its own item back on the next turn', async () => {
    const { output } = await compact();
    const item = output.at(-1) as Record<string, unknown>;
    bed.fake.reset();
    const next = await post('/v1/responses', {
      model,
      input: [...output, { role: 'user', content: 'Go on.' }],
    });
    expect(next.statusCode, next.body).toBe(200);
    const sent = bed.fake.requests[0]?.body as { input: unknown[] };
    expect(bed.fake.requests[0]?.path).toBe('/v1/responses');
    expect(sent.input).toContainEqual({
      type: 'compaction',
      id: item.id,
      encrypted_content: fakeCompactionContent(String(item.id)),
    });
  });

  it('refuses the upstream item on a model the gateway compacts, where nobody can read it', async () => {
    const { output } = await compact();
    bed.fake.reset();
    const next = await post('/v1/responses', {
      model: compactionModels.chat,
      input: [...output, { role: 'user', content: 'Go on.' }],
    });
    expect(next.statusCode).toBe(400);
    const { error } = next.json<{ error: { message: string; details: unknown } }>();
    expect(error.details).toEqual({ param: `input[${output.length - 1}]` });
    expect(error.message).toContain('only that upstream can read it');
    expect(bed.fake.requests).toHaveLength(0);
  });

  it('forwards a triggering turn as a compact request and streams one sealed item', async () => {
    const client = new OpenAI({ baseURL: `${bed.origin}/v1`, apiKey: token, maxRetries: 0 });
    bed.fake.enqueue({ usage: { input: 800, output: 90 } });
    const stream = client.responses.stream({
      model,
      instructions: 'You are a coding agent.',
      input: [...(conversation as unknown as ResponseInput), { type: 'compaction_trigger' }],
      tools: [{ ...shellTool, strict: false, type: 'function' }],
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const final = await stream.finalResponse();
    expect(final.output.map((item) => item.type)).toEqual(['compaction']);
    expect(final.usage).toMatchObject({ input_tokens: 800, output_tokens: 90 });
    const sent = bed.fake.requests[0];
    expect(sent?.path).toBe('/v1/responses/compact');
    // The compaction endpoint takes no stream, store or include: a normal turn's options.
    expect(Object.keys(sent?.body as object).sort()).toEqual([
      'input',
      'instructions',
      'model',
      'tools',
    ]);
    expect((sent?.body as { input: unknown[] }).input).toEqual(conversation);
  });

  it('sends a summary the gateway sealed elsewhere to the upstream as a user message', async () => {
    bed.fake.enqueue({ output: [{ text: summaryText }] });
    const onChat = await post('/v1/responses/compact', {
      model: compactionModels.chat,
      input: conversation,
    });
    const item = onChat.json<CompactedBody>().output.at(-1);
    bed.fake.reset();
    bed.fake.enqueue({});
    const response = await post('/v1/responses/compact', {
      model,
      input: [item, { role: 'user', content: 'Go on.' }],
    });
    expect(response.statusCode, response.body).toBe(200);
    const sent = bed.fake.requests[0]?.body as { input: Array<Record<string, unknown>> };
    expect(sent.input[0]).toMatchObject({ type: 'message', role: 'user' });
    expect(JSON.stringify(sent.input[0])).toContain(summaryText);
  });

  it('passes on an upstream 429 with its retry-after and charges nothing', async () => {
    bed.fake.enqueue({ status: 429, headers: { 'retry-after': '7' } });
    const response = await post('/v1/responses/compact', { model, input: conversation });
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    const [record] = await bed.gateway.store.usage.listUsage(accountId, 1);
    expect(record).toMatchObject({ outcome: 'upstream_error', status: 429, cost: 0 });
    expect(await bed.gateway.store.ledger.getBalance(accountId)).toMatchObject({
      balance: credits,
      held: 0,
    });
  });
});
