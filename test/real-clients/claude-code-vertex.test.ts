import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterAll, beforeAll, expect, it } from 'vitest';

import type { FakeReply, RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';
import { readFakeToolResults } from '../fake-upstream/read-fake-tool-results.ts';
import {
  startVertexBed,
  vertexModel,
  vertexUpstreamModel,
  type VertexBed,
} from '../upstreams/vertex-test-bed.ts';
import { describeWithClient } from './require-client-binary.ts';
import { describeRun } from './run-client-process.ts';
import { claudeCodeBinary, runClaudeCode } from './run-claude-code.ts';
import { startRecordingProxy, type RecordingProxy } from './start-recording-proxy.ts';

type Json = Record<string, unknown>;

const thinking = 'Two files to read; the first one now.';
const signature = 'EpYBCkYIBxgCKkDvertexClaudeCode+/==';

/** A turn that calls Read on `file`, after checking the previous tool result (if any) arrived. */
function readNext(file: string, toolCallId: string, previous?: string) {
  return (request: RecordedRequest): FakeReply => {
    if (previous !== undefined && !readFakeToolResults(request).at(-1)?.text.includes(previous))
      return { output: [{ text: 'fake-upstream: the previous file never arrived' }] };
    return {
      output: [
        ...(previous === undefined ? [{ reasoning: { text: thinking, signature } }] : []),
        {
          toolCall: {
            id: toolCallId,
            name: 'Read',
            arguments: JSON.stringify({ file_path: file }),
          },
        },
      ],
      usage: { input: 900, cacheRead: 4000, cacheWrite5m: 100, output: 30 },
    };
  };
}

/** The last turn: both files' contents, as the tool results carried them. */
function summarise(request: RecordedRequest): FakeReply {
  const texts = readFakeToolResults(request).map((result) => result.text);
  return { output: [{ text: `Both files: ${texts.join(' | ')}` }] };
}

describeWithClient(
  'Claude Code through the gateway on Claude on Vertex AI',
  claudeCodeBinary,
  () => {
    let bed: VertexBed;
    let proxy: RecordingProxy;
    let workRoot: string;

    beforeAll(async () => {
      // As large as Claude Code asks for (max_tokens 32000).
      bed = await startVertexBed({
        listen: true,
        model: { contextWindow: 200_000, maxOutputTokens: 32_000 },
      });
      proxy = await startRecordingProxy(bed.origin);
      workRoot = await mkdtemp(path.join(tmpdir(), 'switchyard-vertex-claude-code-'));
    });
    afterAll(async () => {
      await proxy?.close();
      await bed?.close();
      await rm(workRoot, { recursive: true, force: true });
    });

    it(
      'runs a three-turn tool session, relayed to streamRawPredict',
      { timeout: 150_000 },
      async () => {
        const home = path.join(workRoot, 'home');
        const cwd = path.join(workRoot, 'project');
        await mkdir(home, { recursive: true });
        await mkdir(cwd, { recursive: true });
        const contents = [`vertex-one-${randomUUID()}`, `vertex-two-${randomUUID()}`];
        const files = contents.map((_, index) => path.join(cwd, `notes-${index + 1}.txt`));
        await Promise.all(files.map((file, index) => writeFile(file, `${contents[index]}\n`)));
        bed.fake.enqueue(
          readNext(files[0] as string, 'toolu_vertex_read_1'),
          readNext(files[1] as string, 'toolu_vertex_read_2', contents[0]),
          summarise,
        );
        const { token } = await bed.newClient();

        const run = await runClaudeCode({
          origin: proxy.origin,
          token,
          credential: 'x-api-key',
          model: vertexModel,
          prompt: 'Read notes-1.txt, then notes-2.txt, in this folder, and tell me what both say.',
          workspace: { home, cwd },
          allowedTools: ['Read'],
        });
        expect(run.timedOut, describeRun(run)).toBe(false);
        expect(run.code, describeRun(run)).toBe(0);
        expect(run.result?.is_error, describeRun(run)).toBe(false);
        for (const content of contents) expect(run.result?.result).toContain(content);

        const calls = bed.fake.requests.filter((request) => request.path.includes('/publishers/'));
        const generations = calls.filter((request) => !request.path.includes('count-tokens'));
        expect(generations).toHaveLength(3);
        for (const call of generations) {
          expect(call.path).toBe(
            `/v1/projects/fake-project/locations/us-east5/publishers/anthropic/models/${vertexUpstreamModel}:streamRawPredict`,
          );
          expect(call.key).toBe(bed.accounts[0]);
          expect(call.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true });
          expect(call.body).not.toHaveProperty('model');
          expect(call.headers['anthropic-beta']).toContain('claude-code-20250219');
          expect(JSON.stringify(call.headers) + call.rawBody).not.toContain(token);
        }
        // The signed thinking of the first turn comes back byte-identical on the next two.
        for (const call of generations.slice(1)) {
          const assistant = ((call.body as Json).messages as Json[]).find(
            (message) => message.role === 'assistant',
          );
          expect(assistant?.content).toContainEqual({ type: 'thinking', thinking, signature });
        }
        expect(bed.vertex.tokens.exchanges).toBe(1);
      },
    );
  },
);
