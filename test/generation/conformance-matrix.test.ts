import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeUpstream } from '../fake-upstream/fake-upstream-server.ts';
import {
  startUpstreamTestBed,
  testModel,
  type TestGateway,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';
import {
  buildRequest,
  readResponse,
  surfacePaths,
  type Conversation,
  type SurfaceName,
} from './surface-clients.ts';

const surfaces: SurfaceName[] = ['messages', 'chat', 'responses'];
const providers = [
  { kind: 'anthropic', model: 'via-anthropic', dialect: 'anthropic' },
  { kind: 'openai-chat', model: 'via-chat', dialect: 'chat' },
  { kind: 'openai-responses', model: 'via-responses', dialect: 'responses' },
] as const;

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe('conformance matrix: 3 client dialects × 3 upstream dialects', () => {
  let bed: UpstreamTestBed;
  let upstream: FakeUpstream;
  let gateway: TestGateway;
  let token: string;
  let accountId: string;

  beforeAll(async () => {
    bed = await startUpstreamTestBed({
      providers: Object.fromEntries(
        providers.map((provider) => [provider.kind, { kind: provider.kind }]),
      ),
      models: providers.map((provider) => testModel(provider.model, provider.kind)),
      upstreamKey: 'upstream-key',
      credits: 100_000_000,
    });
    ({ fake: upstream, gateway, token, accountId } = bed);
  });
  afterAll(async () => {
    await bed.close();
  });
  beforeEach(() => upstream.reset());

  const send = (surface: SurfaceName, body: Record<string, unknown>) =>
    gateway.app.inject({
      method: 'POST',
      url: surfacePaths[surface],
      headers:
        surface === 'messages' ? { 'x-api-key': token } : { authorization: `Bearer ${token}` },
      payload: body,
    });

  for (const surface of surfaces) {
    for (const provider of providers) {
      describe(`${surface} → ${provider.kind}`, () => {
        const conversation = (overrides: Partial<Conversation> = {}): Conversation => ({
          model: provider.model,
          stream: false,
          user: 'What is the weather in Paris?',
          ...overrides,
        });

        for (const stream of [false, true]) {
          it(`answers text (${stream ? 'stream' : 'JSON'}) with usage in the client's semantics`, async () => {
            upstream.enqueue({
              output: [{ text: 'Sunny, 21 degrees.' }],
              usage: { input: 40, cacheRead: 60, output: 7 },
              // The count, asked beside the call, answers before the first byte (decisions/0003).
              delayMs: 100,
            });
            // An OpenAI count includes the cached part of the prompt.
            upstream.enqueueTokenCount({ inputTokens: 100 });
            const response = await send(surface, buildRequest(surface, conversation({ stream })));
            expect(response.statusCode, response.body).toBe(200);
            const view = readResponse(surface, stream, response.body);
            expect(view.errorMessage).toBeUndefined();
            expect(view.text).toBe('Sunny, 21 degrees.');
            expect(view.finished).toBe(true);
            // Message-style input excludes cache reads; the OpenAI dialects include them.
            expect(view.reportedInput).toBe(surface === 'messages' ? 40 : 100);
            expect(view.reportedOutput).toBe(7);
            if (surface === 'messages' && stream) {
              // message_start carries the prompt size (docs/clients.md, decisions/0003):
              // Anthropic's own start, the responses upstream's count that already answered, or the
              // gateway's own count for a chat upstream (which reports usage only at the end).
              if (provider.kind === 'openai-chat') expect(view.startInput).toBeGreaterThan(0);
              else expect(view.startInput).toBe(provider.kind === 'openai-responses' ? 100 : 40);
            }
            const generationCall = upstream.requests.find(
              (request) => !request.path.endsWith('/input_tokens'),
            );
            expect(generationCall?.dialect).toBe(provider.dialect);
            expect(generationCall?.body).toMatchObject({
              model: `${provider.model}-upstream`,
            });
          });

          it(`keeps parallel tool calls whole and apart (${stream ? 'stream' : 'JSON'})`, async () => {
            const calls = [
              { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { id: 'call_rome', name: 'get_weather', arguments: '{"city":"Rome, \\"Italy\\""}' },
            ];
            upstream.enqueue({
              output: calls.map((call) => ({ toolCall: call })),
              usage: { input: 10, output: 20 },
            });
            const response = await send(
              surface,
              buildRequest(surface, conversation({ stream, tools: [weatherTool] })),
            );
            expect(response.statusCode, response.body).toBe(200);
            const view = readResponse(surface, stream, response.body);
            expect(
              view.toolCalls.map((call) => ({ ...call, arguments: JSON.parse(call.arguments) })),
            ).toEqual(calls.map((call) => ({ ...call, arguments: JSON.parse(call.arguments) })));
          });
        }

        it('carries a tool result back to the upstream under the same call id', async () => {
          const response = await send(
            surface,
            buildRequest(
              surface,
              conversation({
                tools: [weatherTool],
                toolRoundTrip: {
                  id: 'call_abc',
                  name: 'get_weather',
                  arguments: '{"city":"Paris"}',
                  result: '21C and sunny',
                },
              }),
            ),
          );
          expect(response.statusCode, response.body).toBe(200);
          const sent = upstream.requests[0]?.rawBody ?? '';
          expect(sent).toContain('call_abc');
          expect(sent).toContain('21C and sunny');
          expect(sent).toContain('Paris');
        });

        it('carries image input', async () => {
          const response = await send(
            surface,
            buildRequest(
              surface,
              conversation({ image: { mediaType: 'image/png', data: 'iVBORw0KGgo=' } }),
            ),
          );
          expect(response.statusCode, response.body).toBe(200);
          expect(upstream.requests[0]?.rawBody).toContain('iVBORw0KGgo=');
        });

        it('maps an upstream 429 to 429 with its retry-after and charges nothing', async () => {
          const before = await gateway.store.ledger.getBalance(accountId);
          upstream.enqueue({ status: 429, headers: { 'retry-after': '7' } });
          const response = await send(surface, buildRequest(surface, conversation()));
          expect(response.statusCode).toBe(429);
          expect(response.headers['retry-after']).toBe('7');
          const after = await gateway.store.ledger.getBalance(accountId);
          expect(after).toEqual(before);
        });

        it('maps an unreadable upstream failure to 502 in the client shape', async () => {
          upstream.enqueue({ status: 500 });
          const response = await send(surface, buildRequest(surface, conversation()));
          expect(response.statusCode).toBe(502);
          const body = response.json();
          if (surface === 'messages') expect(body.type).toBe('error');
          else expect(body.type).toBeUndefined();
          expect(body.error.type).toBe('api_error');
        });

        it('ends a stream that fails midway with the dialect error event', async () => {
          upstream.enqueue({
            output: [{ text: 'Partial answer that breaks' }],
            midStreamError: { afterEvents: 3 },
          });
          const response = await send(
            surface,
            buildRequest(surface, conversation({ stream: true })),
          );
          expect(response.statusCode).toBe(200);
          const view = readResponse(surface, true, response.body);
          expect(view.errorMessage).toBeDefined();
        });

        it('debits exactly the priced usage', async () => {
          const before = await gateway.store.ledger.getBalance(accountId);
          upstream.enqueue({
            output: [{ text: 'ok' }],
            usage: {
              input: 1000,
              cacheRead: 2000,
              cacheWrite5m: provider.kind === 'anthropic' ? 400 : 0,
              output: 100,
            },
          });
          const response = await send(
            surface,
            buildRequest(surface, conversation({ stream: true })),
          );
          expect(response.statusCode).toBe(200);
          const after = await gateway.store.ledger.getBalance(accountId);
          // 1000×3 + 2000×0.3 + 400×3.75 + 100×15 micro-credits (prices per million tokens)
          const expected = 3000 + 600 + (provider.kind === 'anthropic' ? 1500 : 0) + 1500;
          expect(before.balance - after.balance).toBe(expected);
          expect(after.held).toBe(0);
        });
      });
    }
  }
});
