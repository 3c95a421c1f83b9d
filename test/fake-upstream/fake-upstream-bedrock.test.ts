import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createBedrockSigner,
  signBedrockRequest,
} from '../../src/providers/bedrock/sign-bedrock-request.ts';
import { readBedrockEventBatches } from '../../src/providers/bedrock/read-bedrock-event-stream.ts';
import type { UpstreamEvent } from '../../src/providers/provider-codec.ts';
import { startFakeUpstream } from './fake-upstream-server.ts';
import type { FakeUpstream } from './fake-upstream-server.ts';

const credentials = { accessKeyId: 'AKIDFAKE1', secretAccessKey: 'fake-secret-1' };
const modelPath = (model: string, operation: string) =>
  `/model/${encodeURIComponent(model)}/${operation}`;
const claude = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

let fake: FakeUpstream;
beforeAll(async () => {
  fake = await startFakeUpstream({
    requireKey: 'bedrock-api-key',
    promptCache: true,
    bedrock: { credentials: [credentials] },
  });
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function send(
  path: string,
  body: unknown,
  auth: { bearer: string } | { secretAccessKey: string; sessionToken?: string },
): Promise<Answer> {
  const sent = {
    path,
    headers: { 'content-type': 'application/json', accept: 'application/json' } as Record<
      string,
      string
    >,
    body: JSON.stringify(body),
  };
  if ('bearer' in auth) sent.headers.authorization = `Bearer ${auth.bearer}`;
  else {
    await signBedrockRequest(sent, {
      origin: new URL(fake.url),
      signer: createBedrockSigner('us-east-1', async () => ({
        accessKeyId: credentials.accessKeyId,
        ...auth,
      })),
    });
  }
  const response = await request(`${fake.url}${path}`, {
    method: 'POST',
    headers: sent.headers,
    body: sent.body,
  });
  const chunks: Buffer[] = [];
  for await (const chunk of response.body) chunks.push(chunk as Buffer);
  return { status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) };
}

const bearer = { bearer: 'bedrock-api-key' };
const signed = { secretAccessKey: credentials.secretAccessKey };

async function eventsOf(answer: Answer): Promise<UpstreamEvent[]> {
  const events: UpstreamEvent[] = [];
  async function* body() {
    yield answer.body;
  }
  for await (const batch of readBedrockEventBatches(body())) events.push(...batch);
  return events;
}

const invokeBody = {
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 256,
  system: [
    { type: 'text', text: 'You are terse. '.repeat(40), cache_control: { type: 'ephemeral' } },
  ],
  messages: [{ role: 'user', content: 'Hello' }],
};

describe('Bedrock InvokeModel', () => {
  it('answers a SigV4-signed call in the Messages shape, named after the model in the path', async () => {
    const answer = await send(modelPath(claude, 'invoke'), invokeBody, signed);
    expect(answer.status).toBe(200);
    const message = JSON.parse(answer.body.toString());
    expect(message).toMatchObject({
      type: 'message',
      model: claude,
      content: [{ type: 'text', text: 'echo: Hello' }],
    });
    expect(fake.requests[0]?.key).toBe('AKIDFAKE1');
    expect(fake.requests[0]?.path).toBe(
      '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke',
    );
  });

  it('refuses a signature made with the wrong secret, and an unknown API key', async () => {
    const wrong = await send(modelPath(claude, 'invoke'), invokeBody, { secretAccessKey: 'other' });
    expect(wrong.status).toBe(403);
    expect(wrong.headers['x-amzn-errortype']).toMatch(/^InvalidSignatureException:/);
    expect(JSON.parse(wrong.body.toString()).message).toMatch(
      /signature we calculated does not match/,
    );
    const key = await send(modelPath(claude, 'invoke'), invokeBody, { bearer: 'nope' });
    expect(key.status).toBe(403);
  });

  it('refuses a body with `model` or `stream`, or without `anthropic_version`', async () => {
    for (const body of [
      { ...invokeBody, model: claude },
      { ...invokeBody, stream: true },
      { ...invokeBody, anthropic_version: undefined },
    ]) {
      const answer = await send(modelPath(claude, 'invoke'), body, bearer);
      expect(answer.status).toBe(400);
      expect(answer.headers['x-amzn-errortype']).toMatch(/^ValidationException:/);
    }
  });

  it('streams the Anthropic events in base64 chunks, cache usage from the prompt cache', async () => {
    fake.enqueue({
      output: [{ reasoning: { text: 'think', signature: 'c2ln' } }, { text: 'Hi there' }],
      usage: { output: 7 },
    });
    const first = await eventsOf(
      await send(modelPath(claude, 'invoke-with-response-stream'), invokeBody, bearer),
    );
    expect(first.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(first.some((event) => event.data.includes('"signature":"c2ln"'))).toBe(true);
    const written = JSON.parse(first[0]?.data ?? '{}').message.usage;
    expect(written.cache_creation_input_tokens).toBeGreaterThan(0);
    const second = await eventsOf(
      await send(modelPath(claude, 'invoke-with-response-stream'), invokeBody, bearer),
    );
    const read = JSON.parse(second[0]?.data ?? '{}').message.usage;
    expect(read.cache_read_input_tokens).toBe(written.cache_creation_input_tokens);
  });

  it('ends a stream with an exception message when the script fails mid-stream', async () => {
    fake.enqueue({
      output: [{ text: 'partial answer' }],
      midStreamError: { afterEvents: 3, type: 'rate_limit_error', message: 'slow down' },
    });
    const events = await eventsOf(
      await send(modelPath(claude, 'invoke-with-response-stream'), invokeBody, bearer),
    );
    expect(events).toHaveLength(4);
    expect(JSON.parse(events[3]?.data ?? '{}')).toEqual({
      type: 'error',
      error: { type: 'rate_limit_error', message: 'throttlingException: slow down' },
    });
  });

  it('answers a key rule of 429 as ThrottlingException', async () => {
    fake.behaveForKey('AKIDFAKE1', { status: 429 });
    const answer = await send(modelPath(claude, 'invoke'), invokeBody, signed);
    expect(answer.status).toBe(429);
    expect(answer.headers['x-amzn-errortype']).toMatch(/^ThrottlingException:/);
    expect(JSON.parse(answer.body.toString())).toEqual({
      message: 'Too many requests, please wait before trying again.',
    });
  });
});

describe('Bedrock Converse', () => {
  const converseBody = {
    system: [{ text: 'Be helpful. '.repeat(40) }, { cachePoint: { type: 'default', ttl: '1h' } }],
    messages: [{ role: 'user', content: [{ text: 'Weather?' }] }],
    inferenceConfig: { maxTokens: 100 },
  };

  it('answers tool use in the Converse shape with one-hour cache writes in cacheDetails', async () => {
    fake.enqueue({
      output: [
        { toolCall: { id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Oslo"}' } },
      ],
      usage: { output: 12 },
    });
    const answer = await send(modelPath('amazon.nova-pro-v1:0', 'converse'), converseBody, bearer);
    const body = JSON.parse(answer.body.toString());
    expect(body.output.message.content).toEqual([
      { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Oslo' } } },
    ]);
    expect(body.stopReason).toBe('tool_use');
    expect(body.usage.cacheWriteInputTokens).toBeGreaterThan(0);
    expect(body.usage.cacheDetails).toEqual([
      { ttl: '1h', inputTokens: body.usage.cacheWriteInputTokens },
    ]);
  });

  it('streams Converse events with the usage last', async () => {
    fake.enqueue({ output: [{ text: 'Sunny.' }], usage: { input: 50, output: 3 } });
    const events = await eventsOf(
      await send(modelPath('amazon.nova-pro-v1:0', 'converse-stream'), converseBody, signed),
    );
    expect(events.map((event) => event.event)).toEqual([
      'messageStart',
      'contentBlockDelta',
      'contentBlockDelta',
      'contentBlockStop',
      'messageStop',
      'metadata',
    ]);
    expect(JSON.parse(events.at(-1)?.data ?? '{}').usage).toMatchObject({
      inputTokens: 50,
      outputTokens: 3,
    });
  });

  it('counts the tokens of an invoke body', async () => {
    fake.enqueueTokenCount({ inputTokens: 321 });
    const body = {
      input: { invokeModel: { body: Buffer.from(JSON.stringify(invokeBody)).toString('base64') } },
    };
    const answer = await send(modelPath(claude, 'count-tokens'), body, bearer);
    expect(JSON.parse(answer.body.toString())).toEqual({ inputTokens: 321 });
  });
});
