import OpenAI from 'openai';
import type { ResponseInput, ResponseInputItem, Tool } from 'openai/resources/responses/responses';
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

const history = conversation as unknown as ResponseInput;
const trigger = { type: 'compaction_trigger' } as ResponseInputItem;
const tools = [{ ...shellTool, strict: false }] as Tool[];
const instructionStart = compactionInstruction.split('\n')[0] as string;

describe('compaction_trigger on /v1/responses, read by the openai SDK', () => {
  let bed: CompactionTestBed;
  let token: string;
  let accountId: string;
  let client: OpenAI;
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
    client = new OpenAI({ baseURL: `${bed.origin}/v1`, apiKey: token, maxRetries: 0 });
  });

  it('streams exactly one compaction item with the responses events, billed as a call', async () => {
    bed.fake.enqueue({ output: [{ text: summaryText }], usage: { input: 1200, output: 80 } });
    const stream = client.responses.stream({
      model: compactionModels.anthropic,
      instructions: 'You are a coding agent.',
      input: [...history, trigger],
      tools,
      store: false,
    });
    const events: Array<{ type: string; sequence_number: number }> = [];
    for await (const event of stream) events.push(event);
    const final = await stream.finalResponse();

    expect(events.map((event) => event.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.sequence_number)).toEqual([0, 1, 2, 3, 4]);
    expect(final.status).toBe('completed');
    expect(final.output).toHaveLength(1);
    const [item] = final.output;
    expect(item?.type).toBe('compaction');
    if (item?.type !== 'compaction') return;
    expect(item.id).toMatch(/^cmp_/);
    expect(item.encrypted_content.startsWith(compactionTokenPrefix)).toBe(true);
    expect(final.usage).toMatchObject({ input_tokens: 1200, output_tokens: 80 });

    expect(bed.fake.requests).toHaveLength(1);
    const sent = bed.fake.requests[0];
    expect(sent?.path).toBe('/v1/messages');
    expect(sent?.body).toMatchObject({ stream: false, tool_choice: { type: 'none' } });
    expect(sent?.rawBody).toContain(instructionStart);
    expect(sent?.rawBody).not.toContain('compaction_trigger');

    const records = await bed.gateway.store.usage.listUsage(accountId, 10);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ outcome: 'ok', cost: expectedCost(1200, 80) });

    // The item goes back as an input item of the next turn and reaches the upstream expanded.
    bed.fake.reset();
    const next = await client.responses.create({
      model: compactionModels.chat,
      input: [item, { role: 'user', content: 'Go on.' }],
    });
    expect(next.status).toBe('completed');
    expect(bed.fake.requests[0]?.rawBody).toContain(summaryText);
    expect(bed.fake.requests[0]?.rawBody).not.toContain(compactionTokenPrefix);
  });

  it('answers one compaction item in a response object when not streamed', async () => {
    bed.fake.enqueue({ output: [{ text: summaryText }], usage: { input: 500, output: 40 } });
    const response = await client.responses.create({
      model: compactionModels.chat,
      input: [...history, trigger],
      tools,
    });
    expect(response.object).toBe('response');
    expect(response.model).toBe(compactionModels.chat);
    expect(response.output.map((item) => item.type)).toEqual(['compaction']);
    expect(response.usage).toMatchObject({ input_tokens: 500, output_tokens: 40 });
    expect(bed.fake.requests[0]?.body).toMatchObject({ tool_choice: 'none' });
  });

  it('sends a responses upstream without compaction the summary turn in its own dialect', async () => {
    bed.fake.enqueue({ output: [{ text: summaryText }], usage: { input: 700, output: 60 } });
    const response = await client.responses.create({
      model: compactionModels.responses,
      input: [...history, trigger],
      tools,
      text: { verbosity: 'low' },
    });
    expect(response.output.map((item) => item.type)).toEqual(['compaction']);
    const sent = bed.fake.requests[0];
    expect(sent?.path).toBe('/v1/responses');
    const body = sent?.body as { input: unknown[]; text?: unknown };
    expect(body).toMatchObject({ stream: false, store: false, tool_choice: 'none' });
    expect(body.text).toBeUndefined();
    expect(body.input).toHaveLength(history.length + 1);
    expect(JSON.stringify(body.input.at(-1))).toContain(instructionStart);
  });

  it('refuses a trigger that is not the last input item, or has nothing before it', async () => {
    const error = await client.responses
      .create({ model: compactionModels.chat, input: [trigger, ...history] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toContain(
      'input[0]: compaction_trigger must be the last input item.',
    );
    const alone = await client.responses
      .create({ model: compactionModels.chat, input: [trigger] })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect((alone as Error).message).toContain('input[0]: nothing comes before compaction_trigger');
    expect(bed.fake.requests).toHaveLength(0);
  });

  it('serves the older client too: responses.compact returns the compacted history', async () => {
    bed.fake.enqueue({ output: [{ text: summaryText }], usage: { input: 900, output: 70 } });
    const compacted = await client.responses.compact({
      model: compactionModels.chat,
      input: history,
    });
    expect(compacted.object).toBe('response.compaction');
    expect(compacted.output.at(-1)?.type).toBe('compaction');
    expect(compacted.output.slice(0, -1).every((item) => item.type === 'message')).toBe(true);
    expect(compacted.usage).toMatchObject({ input_tokens: 900, output_tokens: 70 });
  });
});
