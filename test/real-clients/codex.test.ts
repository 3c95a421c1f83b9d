import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import type { FakeReply, RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import {
  echoLastToolResult,
  readFakeToolResults,
} from '../fake-upstream/read-fake-tool-results.ts';
import { fakeThinkingSignature } from '../fake-upstream/render-anthropic-reply.ts';
import { expectOnlyGatewayCredential } from './expect-gateway-credential.ts';
import {
  clientPosts,
  generationRequests,
  realClientCloudModels,
  realClientModels,
  upstreamKey,
  useRealClientBed,
  type RealClientBed,
} from './real-client-bed.ts';
import { describeWithClient } from './require-client-binary.ts';
import { readUpstreamToolCalls, readUpstreamTools } from './read-upstream-tools.ts';
import { describeRun } from './run-client-process.ts';
import { codexLauncher, runCodex, type CodexRun } from './run-codex.ts';
import type { ClientExchange } from './start-recording-proxy.ts';

type Json = Record<string, unknown>;
type Route = 'responses' | 'anthropic' | 'azure-openai';

const reasoning = 'The user wants the file shown; cat prints it.';
const encryptedReasoning = 'rc-encrypted-reasoning-0001';

/** The first turn: offered Codex's shell tool, the model reasons and runs `cat <file>`. */
function catFileCall(file: string, route: Route) {
  return (request: RecordedRequest): FakeReply => {
    const shell = readUpstreamTools(request).find((tool) => tool.name === 'exec_command');
    const properties = (shell?.schema as { properties?: Json } | undefined)?.properties ?? {};
    if (!('cmd' in properties)) {
      return { output: [{ text: 'fake-upstream: no exec_command tool with cmd was offered' }] };
    }
    return {
      output: [
        { reasoning: { text: reasoning, encryptedContent: encryptedReasoning } },
        {
          toolCall: {
            ...(route !== 'anthropic'
              ? { id: 'call_rc_exec_0001', itemId: 'fc_rc_exec_0001' }
              : { id: 'toolu_rc_exec_0001' }),
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: `cat ${file}` }),
          },
        },
      ],
    };
  };
}

interface CatFileTurn {
  run: CodexRun;
  file: string;
  content: string;
  toolCallId: string;
  upstream: RecordedRequest[];
  accepted: ClientExchange[];
  refused: ClientExchange[];
}

async function runCatFileTurn(bed: RealClientBed, route: Route): Promise<CatFileTurn> {
  const workspace = await bed.newWorkspace();
  const content = `switchyard-real-client-${randomUUID()}`;
  const file = path.join(workspace.cwd, 'notes.txt');
  await writeFile(file, `${content}\n`);
  bed.fake.enqueue(catFileCall(file, route), echoLastToolResult('The file says: '));
  const run = await runCodex({
    origin: bed.origin,
    token: bed.token,
    model: route === 'azure-openai' ? realClientCloudModels[route] : realClientModels[route],
    prompt: 'Show me what notes.txt in this folder says.',
    workspace,
    // The command is the fake's `cat` of a file the test wrote. Codex's sandbox needs user
    // namespaces that CI runners may refuse, and the gateway's behaviour does not depend on it.
    sandbox: 'danger-full-access',
  });
  const posts = clientPosts(bed.exchanges);
  return {
    run,
    file,
    content,
    toolCallId: route === 'anthropic' ? 'toolu_rc_exec_0001' : 'call_rc_exec_0001',
    upstream: generationRequests(bed.fake),
    accepted: posts.filter((exchange) => exchange.status === 200),
    refused: posts.filter((exchange) => exchange.status !== 200),
  };
}

function bodyOf(value: { body: unknown } | undefined): Json {
  return (value?.body ?? {}) as Json;
}

function inputOf(exchange: ClientExchange | undefined): Json[] {
  return (bodyOf(exchange).input ?? []) as Json[];
}

function expectToolRoundTrip(turn: CatFileTurn, bed: RealClientBed): void {
  const { run } = turn;
  expect(run.timedOut, describeRun(run)).toBe(false);
  expect(run.code, describeRun(run)).toBe(0);
  // The last message Codex printed quotes the file, printed by its own shell tool.
  expect(run.lastMessage, describeRun(run)).toContain('The file says: ');
  expect(run.lastMessage).toContain(turn.content);
  expect(run.stdout).toContain(turn.content);

  expect(turn.refused.map((exchange) => exchange.responseText)).toEqual([]);
  expect(bed.fake.pendingReplies).toBe(0);
  expect(turn.upstream).toHaveLength(2);
  expect(turn.accepted).toHaveLength(2);
  for (const request of turn.upstream) expectOnlyGatewayCredential(request, bed.token);
  for (const exchange of turn.accepted) {
    expect(exchange.url).toBe('/v1/responses');
    expect(exchange.headers.authorization).toBe(`Bearer ${bed.token}`);
    expect(exchange.responseHeaders['content-type']).toContain('text/event-stream');
    // docs/clients.md: the turn ends only on response.completed.
    expect(exchange.responseText).toContain('response.completed');
  }

  const second = turn.upstream[1] as RecordedRequest;
  expect(readUpstreamToolCalls(second)).toEqual([
    expect.objectContaining({
      id: turn.toolCallId,
      name: 'exec_command',
      arguments: JSON.stringify({ cmd: `cat ${turn.file}` }),
    }),
  ]);
  const results = readFakeToolResults(second);
  expect(results).toHaveLength(1);
  expect(results[0]?.toolCallId).toBe(turn.toolCallId);
  expect(results[0]?.text).toContain(turn.content);
  // Codex answered the call by its call_id.
  const output = inputOf(turn.accepted[1]).find((item) => item.type === 'function_call_output');
  expect(output?.call_id).toBe(turn.toolCallId);
}

describeWithClient('Codex exec through the gateway', codexLauncher, () => {
  let bed: RealClientBed;
  useRealClientBed((started) => (bed = started));

  it(
    'openai-responses upstream (same dialect): runs the shell tool and forwards every field it sent',
    { timeout: 150_000 },
    async () => {
      const turn = await runCatFileTurn(bed, 'responses');
      expectToolRoundTrip(turn, bed);
      turn.upstream.forEach((upstream, index) => {
        expect(bodyOf(upstream)).toEqual({
          ...bodyOf(turn.accepted[index]),
          model: `${realClientModels.responses}-upstream`,
          // Codex sends no output limit; the one the hold covers is set (docs/decisions/0015).
          max_output_tokens: 32_000,
        });
      });
      expect(turn.accepted[0]?.responseText).toContain(`"model":"${realClientModels.responses}"`);
      expect(turn.accepted[0]?.responseText).not.toContain('-upstream');
      expect(bodyOf(turn.upstream[0])).toMatchObject({
        stream: true,
        store: false,
        include: ['reasoning.encrypted_content'],
        prompt_cache_key: expect.any(String),
        client_metadata: expect.any(Object),
      });
      expect(readUpstreamTools(turn.upstream[0] as RecordedRequest)).toContainEqual({
        name: '(web_search)',
        schema: undefined,
      });
      // The reasoning item and the call come back with their ids, never confused.
      const replayed = inputOf(turn.accepted[1]);
      expect(replayed).toContainEqual(
        expect.objectContaining({ type: 'reasoning', encrypted_content: encryptedReasoning }),
      );
      expect(replayed).toContainEqual(
        expect.objectContaining({
          type: 'function_call',
          id: 'fc_rc_exec_0001',
          call_id: 'call_rc_exec_0001',
        }),
      );
    },
  );

  it(
    'anthropic upstream (cross dialect): runs the shell tool with tools, result and thinking translated',
    { timeout: 150_000 },
    async () => {
      const turn = await runCatFileTurn(bed, 'anthropic');
      expectToolRoundTrip(turn, bed);
      const clientTools = (bodyOf(turn.accepted[0]).tools ?? []) as Json[];
      // decisions/0011: the model lets the web_search tool be ignored, and the answer says so.
      const webSearch = clientTools.findIndex((tool) => tool.type === 'web_search');
      expect(webSearch).toBeGreaterThanOrEqual(0);
      for (const exchange of turn.accepted) {
        expect(exchange.responseHeaders['x-switchyard-ignored-fields']).toBe(`tools[${webSearch}]`);
      }
      // Every function tool crosses with its schema; namespaced ones as `<namespace>--<name>`.
      const expectedTools = clientTools.flatMap((tool) => {
        if (tool.type === 'function') return [{ name: tool.name, schema: tool.parameters }];
        if (tool.type !== 'namespace') return [];
        return (tool.tools as Json[]).map((inner) => ({
          name: `${String(tool.name)}--${String(inner.name)}`,
          schema: inner.parameters,
        }));
      });
      const upstreamTools = readUpstreamTools(turn.upstream[0] as RecordedRequest);
      expect(upstreamTools.map((tool) => tool.name)).toEqual(
        expectedTools.map((tool) => tool.name),
      );
      upstreamTools.forEach((tool, index) => {
        expect(tool.schema).toMatchObject(expectedTools[index]?.schema as Json);
      });
      // Codex's base instructions arrive as its first developer message (docs/clients.md).
      const developer = inputOf(turn.accepted[0]).find((item) => item.role === 'developer');
      const instructions = ((developer?.content ?? []) as Json[])[0]?.text;
      expect(instructions).toEqual(expect.any(String));
      expect(JSON.stringify(bodyOf(turn.upstream[0]).system)).toContain(
        JSON.stringify(instructions).slice(1, 200),
      );
      // Anthropic thinking rides to Codex as encrypted content and comes back byte-identical.
      const reasoningItem = inputOf(turn.accepted[1]).find((item) => item.type === 'reasoning');
      expect(reasoningItem?.encrypted_content).toMatch(/^sy1\.anthropic\./);
      const assistant = (bodyOf(turn.upstream[1]).messages as Json[]).find(
        (message) => message.role === 'assistant',
      );
      expect(assistant?.content).toContainEqual({
        type: 'thinking',
        thinking: reasoning,
        signature: fakeThinkingSignature(reasoning),
      });
    },
  );

  it(
    'azure-openai upstream: runs the shell tool through Azure’s responses route with its reasoning',
    { timeout: 150_000 },
    async () => {
      const turn = await runCatFileTurn(bed, 'azure-openai');
      expectToolRoundTrip(turn, bed);
      for (const upstream of turn.upstream) {
        expect(upstream.path).toBe('/openai/v1/responses');
        // The deployment name, and the key in Azure's own header.
        expect(bodyOf(upstream).model).toBe(`${realClientCloudModels['azure-openai']}-upstream`);
        expect(upstream.headers['api-key']).toBe(upstreamKey);
      }
      const replayed = inputOf(turn.accepted[1]);
      expect(replayed).toContainEqual(
        expect.objectContaining({ type: 'reasoning', encrypted_content: encryptedReasoning }),
      );
      expect(JSON.stringify(bodyOf(turn.upstream[1]).input)).toContain(encryptedReasoning);
    },
  );
});
