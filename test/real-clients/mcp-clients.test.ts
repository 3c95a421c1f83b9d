import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import type { FakeReply, RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import { readFakeToolResults } from '../fake-upstream/read-fake-tool-results.ts';
import {
  startFakeSearchUpstream,
  type FakeSearchUpstream,
} from '../search/fake-search-upstream.ts';
import { realClientModels, useRealClientBed, type RealClientBed } from './real-client-bed.ts';
import { readUpstreamTools } from './read-upstream-tools.ts';
import { describeWithClient, itWithClient } from './require-client-binary.ts';
import { describeRun } from './run-client-process.ts';
import { claudeCodeBinary, runClaudeCode } from './run-claude-code.ts';
import { codexLauncher, runCodex } from './run-codex.ts';
import type { ClientExchange } from './start-recording-proxy.ts';

type Json = Record<string, unknown>;

/** What each client names the gateway's MCP server. */
const serverName = 'switchyard';

/**
 * The first turn: the model calls the gateway's `search` and `list_models` tools, found among
 * the tools the client offered by their MCP names (`mcp__switchyard__search` in Claude Code).
 */
function callMcpTools(query: string, ids: [string, string]) {
  return (request: RecordedRequest): FakeReply => {
    const names = readUpstreamTools(request).map((tool) => tool.name);
    const find = (tool: string) =>
      names.find((name) => name.includes(serverName) && name.endsWith(tool));
    const search = find('search');
    const listModels = find('list_models');
    if (search === undefined || listModels === undefined) {
      return {
        output: [{ text: `fake-upstream: no MCP tools offered among ${names.join(', ')}` }],
      };
    }
    return {
      output: [
        {
          toolCall: {
            id: ids[0],
            name: search,
            arguments: JSON.stringify({ query, max_results: 2 }),
          },
        },
        { toolCall: { id: ids[1], name: listModels, arguments: '{}' } },
      ],
    };
  };
}

/** The second turn: the model repeats every tool result it was given. */
function echoToolResults(request: RecordedRequest): FakeReply {
  const results = readFakeToolResults(request);
  const text = results.map((result) => `[${result.toolCallId}] ${result.text}`).join('\n');
  return { output: [{ text: `Tool results:\n${text || 'none'}` }] };
}

/** The JSON-RPC methods the client POSTed to /mcp, and the tools/call names. */
function mcpTraffic(exchanges: ClientExchange[]) {
  const posts = exchanges.filter(
    (exchange) => exchange.url === '/mcp' && exchange.method === 'POST',
  );
  const messages = posts.flatMap((exchange) => {
    const body = exchange.body as Json | Json[] | undefined;
    return Array.isArray(body) ? body : body === undefined ? [] : [body];
  });
  return {
    posts,
    methods: messages.map((message) => String(message.method)),
    calls: messages
      .filter((message) => message.method === 'tools/call')
      .map((message) => (message.params as Json).name),
  };
}

describeWithClient(
  "MCP: real clients call the gateway's tools over streamable HTTP",
  claudeCodeBinary,
  () => {
    let bed: RealClientBed;
    let search: FakeSearchUpstream;
    useRealClientBed(
      (started) => (bed = started),
      async () => {
        search = await startFakeSearchUpstream();
        return {
          config: {
            search: {
              providers: [{ id: 'web', kind: 'tavily', baseUrl: search.url }],
              pricePerRequest: 0.005,
            },
          },
        };
      },
    );
    afterAll(async () => search?.close());

    /** What every client run shows on the gateway's side. */
    const expectToolsRan = (query: string, answer: string, before: number) => {
      const traffic = mcpTraffic(bed.exchanges);
      expect(traffic.methods).toContain('initialize');
      expect(traffic.methods).toContain('tools/list');
      expect(traffic.calls.sort()).toEqual(['list_models', 'search']);
      for (const exchange of traffic.posts) {
        expect(exchange.headers.authorization).toBe(`Bearer ${bed.token}`);
        const method = (exchange.body as Json | undefined)?.method;
        if (method === 'server/discover') {
          // Claude Code first probes a protocol version newer than the SDK speaks; the SDK refuses
          // the version and the client falls back to initialize.
          expect(exchange.status, exchange.responseText).toBe(400);
          continue;
        }
        expect([200, 202], exchange.responseText).toContain(exchange.status);
      }
      // The search tool reached the provider with the model's query.
      expect(search.requests.slice(before).map((request) => (request.body as Json).query)).toEqual([
        query,
      ]);
      // The client saw both results: the model's echo quotes a hit and a catalog model.
      expect(answer).toContain(`Result 1 for ${query}`);
      expect(answer).toContain(realClientModels.anthropic);
    };

    it(
      'Claude Code with the gateway added by `claude mcp add --transport http`',
      { timeout: 150_000 },
      async () => {
        const query = `mcp-claude-${randomUUID().slice(0, 8)}`;
        bed.fake.enqueue(
          callMcpTools(query, ['toolu_mcp_search', 'toolu_mcp_models']),
          echoToolResults,
        );
        const before = search.requests.length;
        const run = await runClaudeCode({
          origin: bed.origin,
          token: bed.token,
          credential: 'x-api-key',
          model: realClientModels.anthropic,
          prompt: 'Search the web for the query and list the models, using the switchyard tools.',
          workspace: await bed.newWorkspace(),
          allowedTools: [`mcp__${serverName}__search`, `mcp__${serverName}__list_models`],
          // With tool search on, MCP tools are only offered through ToolSearch: a fake model could
          // not see them to call them (docs/clients.md).
          extraEnv: { ENABLE_TOOL_SEARCH: 'false' },
          mcpServer: {
            name: serverName,
            url: `${bed.origin}/mcp`,
            headers: { Authorization: `Bearer ${bed.token}` },
          },
        });
        expect(run.code, describeRun(run)).toBe(0);
        expect(run.result, describeRun(run)).toMatchObject({ subtype: 'success', is_error: false });
        expectToolsRan(query, run.result?.result ?? '', before);
      },
    );

    itWithClient(codexLauncher)(
      'Codex with `[mcp_servers.switchyard]` url and bearer_token_env_var',
      async () => {
        const query = `mcp-codex-${randomUUID().slice(0, 8)}`;
        bed.fake.enqueue(
          callMcpTools(query, ['call_mcp_search', 'call_mcp_models']),
          echoToolResults,
        );
        const before = search.requests.length;
        const run = await runCodex({
          origin: bed.origin,
          token: bed.token,
          // Codex offers MCP tools in a namespace; across dialects they reach the fake as flat
          // `mcp__switchyard--search` functions it can call by name (docs/translation.md).
          model: realClientModels.anthropic,
          prompt: 'Search the web for the query and list the models, using the switchyard tools.',
          workspace: await bed.newWorkspace(),
          mcpServer: { name: serverName, url: `${bed.origin}/mcp` },
        });
        expect(run.code, describeRun(run)).toBe(0);
        expectToolsRan(query, run.lastMessage ?? '', before);
      },
      150_000,
    );
  },
);
