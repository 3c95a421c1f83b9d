import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FakeReply, RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import {
  echoLastToolResult,
  readFakeToolResults,
} from '../fake-upstream/read-fake-tool-results.ts';
import { fakeThinkingSignature } from '../fake-upstream/render-anthropic-reply.ts';
import { expectOnlyGatewayCredential } from './expect-gateway-credential.ts';
import {
  bedrockUpstreamModel,
  clientPosts,
  generationRequests,
  realClientCloudModels,
  realClientModels,
  useRealClientBed,
  type RealClientBed,
} from './real-client-bed.ts';
import { describeWithClient } from './require-client-binary.ts';
import { readUpstreamToolCalls, readUpstreamTools } from './read-upstream-tools.ts';
import { describeRun } from './run-client-process.ts';
import { claudeCodeBinary, runClaudeCode, type ClaudeCodeRun } from './run-claude-code.ts';
import type { ClientExchange } from './start-recording-proxy.ts';

type Json = Record<string, unknown>;
type Route = 'anthropic' | 'chat' | 'responses';
type Credential = 'x-api-key' | 'bearer';

const thinking = 'The user wants the file; I will read it.';
/** What an OpenAI-responses upstream encrypts its reasoning into; it must come back unchanged. */
const encryptedReasoning = 'rc-encrypted-reasoning-0002';

/** The first turn: offered a `Read` tool with `file_path`, the model thinks and calls it. */
function readFileCall(file: string, toolCallId: string) {
  return (request: RecordedRequest): FakeReply => {
    const read = readUpstreamTools(request).find((tool) => tool.name === 'Read');
    const properties = (read?.schema as { properties?: Json } | undefined)?.properties ?? {};
    if (!('file_path' in properties)) {
      return { output: [{ text: 'fake-upstream: no Read tool with file_path was offered' }] };
    }
    return {
      output: [
        { reasoning: { text: thinking, encryptedContent: encryptedReasoning } },
        {
          toolCall: {
            id: toolCallId,
            name: 'Read',
            arguments: JSON.stringify({ file_path: file }),
          },
        },
      ],
    };
  };
}

interface ReadFileTurn {
  run: ClaudeCodeRun;
  file: string;
  content: string;
  toolCallId: string;
  upstream: RecordedRequest[];
  /** The client's requests the gateway accepted, in order (each reached the fake). */
  accepted: ClientExchange[];
  refused: ClientExchange[];
}

async function runReadFileTurn(
  bed: RealClientBed,
  route: Route,
  credential: Credential,
  extraEnv: Record<string, string> = {},
): Promise<ReadFileTurn> {
  const workspace = await bed.newWorkspace();
  const content = `switchyard-real-client-${randomUUID()}`;
  const file = path.join(workspace.cwd, 'notes.txt');
  await writeFile(file, `${content}\n`);
  const toolCallId = route === 'anthropic' ? 'toolu_rc_read_0001' : 'call_rc_read_0001';
  bed.fake.enqueue(readFileCall(file, toolCallId), echoLastToolResult('The file says: '));
  const run = await runClaudeCode({
    origin: bed.origin,
    token: bed.token,
    credential,
    model: realClientModels[route],
    prompt: 'What does notes.txt in this folder say? Read it.',
    workspace,
    allowedTools: ['Read'],
    extraEnv,
  });
  const posts = clientPosts(bed.exchanges);
  return {
    run,
    file,
    content,
    toolCallId,
    upstream: generationRequests(bed.fake),
    accepted: posts.filter((exchange) => exchange.status === 200),
    refused: posts.filter((exchange) => exchange.status !== 200),
  };
}

/** What every successful turn shows, whatever the route. */
function expectToolRoundTrip(turn: ReadFileTurn, bed: RealClientBed): void {
  const { run } = turn;
  expect(run.timedOut, describeRun(run)).toBe(false);
  expect(run.code, describeRun(run)).toBe(0);
  expect(run.result, describeRun(run)).toMatchObject({
    type: 'result',
    subtype: 'success',
    is_error: false,
    permission_denials: [],
  });
  // The answer the client printed quotes the file, read by its own Read tool.
  expect(run.result?.result).toContain(`The file says: `);
  expect(run.result?.result).toContain(turn.content);
  expect(run.result?.usage).toMatchObject({
    input_tokens: expect.any(Number),
    output_tokens: expect.any(Number),
  });
  expect(run.result?.usage.output_tokens).toBeGreaterThan(0);

  expect(bed.fake.pendingReplies).toBe(0);
  expect(turn.upstream).toHaveLength(2);
  expect(turn.accepted).toHaveLength(2);
  for (const request of turn.upstream) expectOnlyGatewayCredential(request, bed.token);
  for (const exchange of turn.accepted) {
    expect(exchange.url).toBe('/v1/messages?beta=true');
    expect(exchange.responseHeaders['content-type']).toContain('text/event-stream');
    // docs/clients.md: message_start announces the real prompt size, whatever the upstream.
    const start = /^event: message_start\ndata: (.*)$/m.exec(exchange.responseText);
    const startUsage = JSON.parse(start?.[1] ?? '{}').message?.usage;
    expect(startUsage?.input_tokens, exchange.responseText.slice(0, 400)).toBeGreaterThan(0);
  }

  const [first, second] = turn.upstream as [RecordedRequest, RecordedRequest];
  const read = readUpstreamTools(first).find((tool) => tool.name === 'Read');
  expect(read?.schema).toMatchObject({ properties: { file_path: { type: 'string' } } });
  // The replayed call keeps its id and arguments, and towards openai-responses the upstream's own
  // `fc_` item id; the result answers that same id.
  expect(readUpstreamToolCalls(second)).toEqual([
    {
      id: turn.toolCallId,
      name: 'Read',
      arguments: JSON.stringify({ file_path: turn.file }),
      ...(second.dialect === 'responses' ? { itemId: expect.stringMatching(/^fc_/) } : {}),
    },
  ]);
  const results = readFakeToolResults(second);
  expect(results).toHaveLength(1);
  expect(results[0]?.toolCallId).toBe(turn.toolCallId);
  expect(results[0]?.text).toContain(turn.content);
}

/** The `usage` of a recorded stream's event (`message_start` or `message_delta`). */
function streamUsage(exchange: ClientExchange, event: 'message_start' | 'message_delta'): Json {
  const match = new RegExp(`^event: ${event}\ndata: (.*)$`, 'm').exec(exchange.responseText);
  const data = JSON.parse(match?.[1] ?? '{}') as Json;
  return ((event === 'message_start' ? (data.message as Json | undefined)?.usage : data.usage) ??
    {}) as Json;
}

/**
 * decisions/0003: a cross-dialect stream starts with the gateway's count of the prompt and ends
 * with the upstream's own figures; Claude Code's accounting (the result's usage, its context
 * meter) takes the upstream's input count from `message_delta`.
 */
function expectUpstreamInputCounted(turn: ReadFileTurn): void {
  let startInput = 0;
  let upstreamInput = 0;
  for (const exchange of turn.accepted) {
    const start = streamUsage(exchange, 'message_start').input_tokens as number;
    const final = streamUsage(exchange, 'message_delta').input_tokens as number;
    expect(start).toBeGreaterThan(0);
    expect(final).toBeGreaterThan(0);
    startInput += start;
    upstreamInput += final;
  }
  // The fake counts the request body, the gateway the prompt: the two differ, so the result
  // shows which one the client kept.
  expect(startInput).not.toBe(upstreamInput);
  expect(turn.run.result?.usage.input_tokens).toBe(upstreamInput);
}

function bodyOf(value: { body: unknown } | undefined): Json {
  return (value?.body ?? {}) as Json;
}

describeWithClient(
  'Claude Code -p --output-format json through the gateway',
  claudeCodeBinary,
  () => {
    let bed: RealClientBed;

    useRealClientBed((started) => (bed = started));

    describe.each<Credential>(['x-api-key', 'bearer'])('credential %s', (credential) => {
      it(
        'anthropic upstream (same dialect): runs Read and forwards every field it sent',
        { timeout: 150_000 },
        async () => {
          const turn = await runReadFileTurn(bed, 'anthropic', credential);
          expectToolRoundTrip(turn, bed);
          expect(turn.refused).toEqual([]);
          const sentHeader = credential === 'bearer' ? 'authorization' : 'x-api-key';
          expect(turn.accepted[0]?.headers[sentHeader]).toContain(bed.token);

          turn.upstream.forEach((upstream, index) => {
            const client = turn.accepted[index];
            // Same dialect: the body is the client's, with only the model replaced.
            expect(bodyOf(upstream)).toEqual({
              ...bodyOf(client),
              model: `${realClientModels.anthropic}-upstream`,
            });
            expect(upstream.headers['anthropic-beta']).toBe(client?.headers['anthropic-beta']);
            expect(upstream.headers['anthropic-version']).toBe(
              client?.headers['anthropic-version'],
            );
            for (const name of ['x-app', 'x-claude-code-session-id']) {
              expect(client?.headers[name]).toEqual(expect.any(String));
              expect(upstream.headers[name]).toBe(client?.headers[name]);
            }
          });
          // The client sees the catalog model id, never the deployment's upstream name.
          expect(turn.accepted[0]?.responseText).toContain(
            `"model":"${realClientModels.anthropic}"`,
          );
          expect(turn.accepted[0]?.responseText).not.toContain('-upstream');
          const first = bodyOf(turn.upstream[0]);
          expect(first).toMatchObject({
            stream: true,
            thinking: { type: expect.any(String) },
            context_management: { edits: expect.any(Array) },
            metadata: { user_id: expect.any(String) },
          });
          expect(turn.upstream[0]?.headers['anthropic-beta']).toContain('claude-code-20250219');
          expect(JSON.stringify(first.system)).toContain('"cache_control":{"type":"ephemeral"');
          // Signed thinking comes back byte-identical on the next turn.
          const assistant = (bodyOf(turn.upstream[1]).messages as Json[]).find(
            (message) => message.role === 'assistant',
          );
          expect(assistant?.content).toContainEqual({
            type: 'thinking',
            thinking,
            signature: fakeThinkingSignature(thinking),
          });
        },
      );

      describe.each<Exclude<Route, 'anthropic'>>(['chat', 'responses'])(
        'openai-%s upstream (cross dialect)',
        (route) => {
          it(
            'runs Read with its tools, result and reasoning translated',
            { timeout: 150_000 },
            async () => {
              const turn = await runReadFileTurn(bed, route, credential);
              expectToolRoundTrip(turn, bed);
              // decisions/0030: with tool search on (the default) the deferred tools cross as
              // ordinary tools, so not one request is refused.
              expect(turn.refused).toEqual([]);
              expectUpstreamInputCounted(turn);
              const client = bodyOf(turn.accepted[0]);
              expect(client.tools).toContainEqual(expect.objectContaining({ defer_loading: true }));
              const first = bodyOf(turn.upstream[0]);
              const clientTools = (client.tools as Json[]).map((tool) => ({
                name: tool.name,
                schema: tool.input_schema,
              }));
              expect(readUpstreamTools(turn.upstream[0] as RecordedRequest)).toEqual(clientTools);
              expect(first).toMatchObject({
                model: `${realClientModels[route]}-upstream`,
                stream: true,
              });
              // OpenAI refuses a `user` over 64 characters; Claude Code's is a JSON text.
              expect((client.metadata as Json).user_id).toEqual(expect.any(String));
              expect(first.user).toMatch(/^sy-[0-9a-f]{61}$/);
              // thinking.display "omitted" crosses: the thinking block comes without its text.
              expect(client.thinking).toMatchObject({ type: 'adaptive', display: 'omitted' });
              expect(turn.accepted[0]?.responseText).toContain('"type":"thinking"');
              expect(turn.accepted[0]?.responseText).not.toContain(thinking);
              const effort = (client.output_config as Json).effort;
              if (route === 'chat') {
                expect(first).toMatchObject({
                  stream_options: { include_usage: true },
                  max_completion_tokens: client.max_tokens,
                  reasoning_effort: effort,
                });
                // Claude Code's system message inside `messages` keeps its place.
                const roles = (first.messages as Json[]).map((message) => message.role);
                expect(roles.slice(0, 3)).toEqual(['system', 'user', 'system']);
                return;
              }
              expect(first).toMatchObject({
                store: false,
                include: ['reasoning.encrypted_content'],
                max_output_tokens: client.max_tokens,
                reasoning: { effort },
              });
              // The reasoning item rides in the thinking signature and comes back exactly.
              expect(turn.accepted[0]?.responseText).toContain('sy1.openai.');
              const input = bodyOf(turn.upstream[1]).input as Json[];
              expect(input).toContainEqual(
                expect.objectContaining({
                  type: 'reasoning',
                  encrypted_content: encryptedReasoning,
                  summary: [{ type: 'summary_text', text: thinking }],
                }),
              );
            },
          );
        },
      );
    });

    it(
      'cross dialect with ENABLE_TOOL_SEARCH=false: no request is refused',
      { timeout: 150_000 },
      async () => {
        const turn = await runReadFileTurn(bed, 'chat', 'x-api-key', {
          ENABLE_TOOL_SEARCH: 'false',
        });
        expectToolRoundTrip(turn, bed);
        expect(turn.refused).toEqual([]);
        expect(bodyOf(turn.accepted[0]).context_management).toBeDefined();
        expect(bodyOf(turn.accepted[0]).thinking).toMatchObject({ display: 'omitted' });
      },
    );
  },
);

describeWithClient(
  'Claude Code: a three-turn session on Claude through Amazon Bedrock',
  claudeCodeBinary,
  () => {
    let bed: RealClientBed;

    useRealClientBed((started) => (bed = started));

    it(
      'relays each turn to InvokeModel, thinking signatures and history intact',
      { timeout: 240_000 },
      async () => {
        const workspace = await bed.newWorkspace();
        const content = `switchyard-bedrock-${randomUUID()}`;
        const file = path.join(workspace.cwd, 'notes.txt');
        await writeFile(file, `${content}\n`);
        bed.fake.enqueue(
          readFileCall(file, 'toolu_bdrk_read_0001'),
          echoLastToolResult('The file says: '),
          { output: [{ text: 'Second answer.' }] },
          { output: [{ text: 'Third answer.' }] },
        );
        const turn = (prompt: string, continueConversation: boolean) =>
          runClaudeCode({
            origin: bed.origin,
            token: bed.token,
            credential: 'x-api-key',
            model: realClientCloudModels.bedrock,
            prompt,
            workspace,
            allowedTools: ['Read'],
            continueConversation,
            timeoutMs: 70_000,
          });
        const runs = [
          await turn(`Read ${file} and tell me what it says.`, false),
          await turn('Say it again, briefly.', true),
          await turn('And once more.', true),
        ];
        for (const run of runs) {
          expect(run.code, describeRun(run)).toBe(0);
          expect(run.result?.is_error, describeRun(run)).toBe(false);
        }
        expect(runs[0]?.result?.result).toContain(content);
        expect(runs[1]?.result?.result).toContain('Second answer.');
        expect(runs[2]?.result?.result).toContain('Third answer.');

        const upstream = generationRequests(bed.fake);
        expect(upstream).toHaveLength(4);
        for (const request of upstream) {
          expect(request.path).toBe(
            `/model/${encodeURIComponent(bedrockUpstreamModel)}/invoke-with-response-stream`,
          );
          expectOnlyGatewayCredential(request, bed.token);
          const body = bodyOf(request);
          expect(body.anthropic_version).toBe('bedrock-2023-05-31');
          expect(body).not.toHaveProperty('model');
          expect(body).not.toHaveProperty('stream');
          expect(body.anthropic_beta).toContain('claude-code-20250219');
        }
        // The last turn carries the whole session: the signed thinking exactly, the tool
        // call and its result, and the two earlier answers.
        const last = upstream[3] as RecordedRequest;
        const blocks = (bodyOf(last).messages as Json[]).flatMap((message) =>
          Array.isArray(message.content) ? (message.content as Json[]) : [],
        );
        expect(blocks).toContainEqual({
          type: 'thinking',
          thinking,
          signature: fakeThinkingSignature(thinking),
        });
        expect(readFakeToolResults(last)[0]?.text).toContain(content);
        expect(last.rawBody).toContain('Second answer.');
        expect(readUpstreamToolCalls(last)[0]?.id).toBe('toolu_bdrk_read_0001');
      },
    );
  },
);
