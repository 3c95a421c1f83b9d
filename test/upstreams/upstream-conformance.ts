import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type {
  FakeUpstream,
  FakeUpstreamOptions,
  RecordedRequest,
} from '../fake-upstream/fake-upstream-server.ts';
import {
  buildRequest,
  readResponse,
  surfacePaths,
  type Conversation,
  type SurfaceName,
} from '../generation/surface-clients.ts';
import {
  startUpstreamTestBed,
  testModel,
  type TestGateway,
  type UpstreamTestBed,
} from '../support/test-gateway.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One provider kind as the conformance suite drives it through the fake upstream. */
export interface UpstreamKindSpec {
  /** The provider's configuration, without `baseUrl` (the fake's). */
  provider: { kind: string } & Record<string, unknown>;
  /** The deployment's `upstreamModel`. */
  upstreamModel: string;
  /** Environment the provider's credentials come from. */
  env?: Record<string, string>;
  /** The key the fake requires (it answers 401 without it), when the kind has a key. */
  upstreamKey?: string;
  fake?: Omit<FakeUpstreamOptions, 'requireKey'>;
  /** Whether the upstream's answers report cache writes (billed at the write price). */
  writesCache: boolean;
  /**
   * The token the upstream of `surface`'s deployment signs its reasoning with, as the fake
   * renders it from a scripted reasoning block of `{ signature, encryptedContent }`: what must come
   * back byte-exact on the next turn.
   */
  reasoningToken(surface: SurfaceName): string;
  /** Checks a generation call reached the upstream as this kind sends it (path, model, auth). */
  expectGenerationCall(request: RecordedRequest, surface: SurfaceName, stream: boolean): void;
}

const surfaces: SurfaceName[] = ['messages', 'chat', 'responses'];

const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

/** The scripted reasoning: a signature for the Anthropic dialect, encrypted content for OpenAI's. */
const reasoning = {
  text: 'The user wants the weather.',
  signature: 'c2lnbmF0dXJlLWZyb20tdGhlLXVwc3RyZWFt',
  encryptedContent: 'gAAAAB-encrypted-by-the-upstream==',
};
export const scriptedReasoning = reasoning;

/**
 * The client dialects × {echo, tools round trip, thinking across turns, cache usage, stream}
 * against one provider kind, with charges exact to the micro-credit.
 */
export function describeUpstreamConformance(name: string, spec: UpstreamKindSpec): void {
  describe(`${name}: 3 client dialects`, () => {
    let bed: UpstreamTestBed;
    let fake: FakeUpstream;
    let gateway: TestGateway;
    let token: string;
    let accountId: string;

    beforeAll(async () => {
      bed = await startUpstreamTestBed({
        providers: { cloud: spec.provider },
        models: [
          testModel('cloud-model', 'cloud', {
            deployments: [{ provider: 'cloud', upstreamModel: spec.upstreamModel }],
          }),
        ],
        ...(spec.upstreamKey !== undefined ? { upstreamKey: spec.upstreamKey } : {}),
        ...(spec.fake !== undefined ? { fake: spec.fake } : {}),
        ...(spec.env !== undefined ? { env: spec.env } : {}),
        credits: 100_000_000,
      });
      ({ fake, gateway, token, accountId } = bed);
    });
    afterAll(async () => {
      await bed.close();
    });
    beforeEach(() => fake.reset());

    const send = (surface: SurfaceName, body: Record<string, unknown>) =>
      gateway.app.inject({
        method: 'POST',
        url: surfacePaths[surface],
        headers:
          surface === 'messages'
            ? { 'x-api-key': token, 'anthropic-version': '2023-06-01' }
            : { authorization: `Bearer ${token}` },
        payload: body,
      });
    const conversation = (overrides: Partial<Conversation> = {}): Conversation => ({
      model: 'cloud-model',
      stream: false,
      user: 'What is the weather in Paris?',
      ...overrides,
    });
    const balance = async () => gateway.store.ledger.getBalance(accountId);

    for (const surface of surfaces) {
      describe(`${surface} → ${name}`, () => {
        for (const stream of [false, true]) {
          it(`echoes text (${stream ? 'stream' : 'JSON'}) and charges its usage exactly`, async () => {
            const before = await balance();
            fake.enqueue({
              output: [{ text: 'Sunny, 21 degrees.' }],
              usage: { input: 40, output: 7 },
            });
            const response = await send(surface, buildRequest(surface, conversation({ stream })));
            expect(response.statusCode, response.body).toBe(200);
            const view = readResponse(surface, stream, response.body);
            expect(view.errorMessage).toBeUndefined();
            expect(view.text).toBe('Sunny, 21 degrees.');
            expect(view.finished).toBe(true);
            expect(view.reportedOutput).toBe(7);
            const call = fake.requests.find((request) => request.method === 'POST');
            expect(call).toBeDefined();
            spec.expectGenerationCall(call as RecordedRequest, surface, stream);
            const after = await balance();
            // 40 × 3 + 7 × 15 micro-credits (prices per million tokens).
            expect(before.balance - after.balance).toBe(40 * 3 + 7 * 15);
            expect(after.held).toBe(0);
          });
        }

        it('carries a tool call out and its result back under the same id', async () => {
          fake.enqueue({
            output: [
              {
                toolCall: { id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
            ],
            usage: { input: 10, output: 20 },
          });
          const first = await send(
            surface,
            buildRequest(surface, conversation({ tools: [weatherTool] })),
          );
          expect(first.statusCode, first.body).toBe(200);
          const [toolCall] = readResponse(surface, false, first.body).toolCalls;
          expect(toolCall?.name).toBe('get_weather');
          expect(JSON.parse(toolCall?.arguments ?? 'null')).toEqual({ city: 'Paris' });
          fake.enqueue({ output: [{ text: '21C in Paris.' }], usage: { input: 30, output: 5 } });
          const second = await send(
            surface,
            buildRequest(
              surface,
              conversation({
                tools: [weatherTool],
                toolRoundTrip: {
                  id: toolCall?.id ?? '',
                  name: 'get_weather',
                  arguments: '{"city":"Paris"}',
                  result: '21C and sunny',
                },
              }),
            ),
          );
          expect(second.statusCode, second.body).toBe(200);
          expect(readResponse(surface, false, second.body).text).toBe('21C in Paris.');
          const sent = fake.requests.at(-1)?.rawBody ?? '';
          expect(sent).toContain('21C and sunny');
          expect(sent).toContain('get_weather');
        });

        it('streams a tool call whole', async () => {
          fake.enqueue({
            output: [
              { toolCall: { id: 'call_rome', name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
            usage: { input: 10, output: 20 },
          });
          const response = await send(
            surface,
            buildRequest(surface, conversation({ stream: true, tools: [weatherTool] })),
          );
          expect(response.statusCode, response.body).toBe(200);
          const view = readResponse(surface, true, response.body);
          expect(view.toolCalls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
            ['get_weather', { city: 'Rome' }],
          ]);
        });

        it('carries signed reasoning to the next turn byte-exact where the client can hold it', async () => {
          fake.enqueue({
            output: [{ reasoning }, { text: 'Sunny.' }],
            usage: { input: 20, output: 30 },
          });
          const opening = withReasoning(surface, buildRequest(surface, conversation()));
          const first = await send(surface, opening);
          expect(first.statusCode, first.body).toBe(200);
          fake.enqueue({
            output: [{ text: 'And tomorrow too.' }],
            usage: { input: 50, output: 5 },
          });
          const next = replayAnswer(surface, opening, first.json(), 'And tomorrow?');
          const second = await send(surface, next);
          expect(second.statusCode, second.body).toBe(200);
          const sent = fake.requests.at(-1)?.rawBody ?? '';
          // A chat client has no field for a signature: its reasoning comes back as text only.
          if (surface !== 'chat') expect(sent).toContain(spec.reasoningToken(surface));
        });

        it('bills cache reads and writes at their own prices', async () => {
          const before = await balance();
          fake.enqueue({
            output: [{ text: 'ok' }],
            usage: {
              input: 1000,
              cacheRead: 2000,
              cacheWrite5m: spec.writesCache ? 400 : 0,
              output: 100,
            },
          });
          const response = await send(
            surface,
            buildRequest(surface, conversation({ stream: true })),
          );
          expect(response.statusCode, response.body).toBe(200);
          const view = readResponse(surface, true, response.body);
          expect(view.finished).toBe(true);
          const after = await balance();
          // 1000×3 + 2000×0.3 + 400×3.75 + 100×15 micro-credits.
          expect(before.balance - after.balance).toBe(
            3000 + 600 + (spec.writesCache ? 1500 : 0) + 1500,
          );
          expect(after.held).toBe(0);
        });
      });
    }
  });
}

/** Asks for reasoning in the client's own words. */
function withReasoning(surface: SurfaceName, body: Json): Json {
  if (surface === 'messages')
    return { ...body, max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 } };
  if (surface === 'chat') return { ...body, reasoning_effort: 'medium' };
  return { ...body, reasoning: { effort: 'medium' }, include: ['reasoning.encrypted_content'] };
}

/** The next turn as the dialect's clients send it: the answer replayed, then a new question. */
function replayAnswer(surface: SurfaceName, opening: Json, answer: Json, question: string): Json {
  if (surface === 'messages')
    return {
      ...opening,
      messages: [
        ...opening.messages,
        { role: 'assistant', content: answer.content },
        { role: 'user', content: question },
      ],
    };
  if (surface === 'chat') {
    const message = answer.choices[0].message;
    return {
      ...opening,
      messages: [
        ...opening.messages,
        {
          role: 'assistant',
          content: message.content,
          ...(message.reasoning_content !== undefined
            ? { reasoning_content: message.reasoning_content }
            : {}),
        },
        { role: 'user', content: question },
      ],
    };
  }
  return {
    ...opening,
    input: [
      ...opening.input,
      ...answer.output,
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: question }] },
    ],
  };
}
