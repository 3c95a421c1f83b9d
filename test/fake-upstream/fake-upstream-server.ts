import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { carriesKey, renderModelList, renderTokenCount } from './answer-fake-upstream-extras.ts';
import { defaultFakeReply } from './default-fake-reply.ts';
import type { FakeDialectRenderer, RenderContext } from './fake-dialect-renderer.ts';
import { createFakeIdSource } from './fake-ids.ts';
import type {
  FakeErrorReply,
  FakeReplyScript,
  FakeTokenCountReply,
  RecordedRequest,
} from './fake-reply.ts';
import { anthropicRenderer } from './render-anthropic-reply.ts';
import { chatRenderer } from './render-chat-reply.ts';
import { responsesCompactionRenderer } from './render-responses-compaction.ts';
import { responsesRenderer } from './render-responses-reply.ts';
import { resolveFakeReply } from './resolve-fake-reply.ts';
import { writeJsonReply, writeSseReply } from './write-fake-reply.ts';

export type * from './fake-reply.ts';

export interface FakeUpstreamOptions {
  /** Answer 401 unless the request carries this key (see `carriesKey`). */
  requireKey?: string;
  /** Model ids listed by `GET /v1/models`. */
  models?: string[];
}

export interface FakeUpstream {
  /** Base URL without `/v1` (e.g. `http://127.0.0.1:40123`); routes live under `/v1`. */
  url: string;
  /** Every request received, in arrival order; cleared in place by `reset()`. */
  requests: RecordedRequest[];
  /** Replies for the generation routes and `/v1/responses/compact`, consumed in order across them. */
  enqueue(...replies: FakeReplyScript[]): void;
  /** Replies for the token-counting routes, consumed in order across them. */
  enqueueTokenCount(...replies: FakeTokenCountReply[]): void;
  /** Generation replies still queued (a test can assert its script was used up). */
  readonly pendingReplies: number;
  reset(): void;
  close(): Promise<void>;
}

const generationRoutes: Record<string, FakeDialectRenderer> = {
  '/v1/messages': anthropicRenderer,
  '/v1/chat/completions': chatRenderer,
  '/v1/responses': responsesRenderer,
  '/v1/responses/compact': responsesCompactionRenderer,
};

const tokenCountRoutes: Record<string, FakeDialectRenderer> = {
  '/v1/messages/count_tokens': anthropicRenderer,
  '/v1/responses/input_tokens': responsesRenderer,
  // vLLM's tokenize route (chat messages through the model's chat template).
  '/tokenize': chatRenderer,
};

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function recordRequest(request: IncomingMessage, rawBody: string): RecordedRequest {
  const url = new URL(request.url ?? '/', 'http://fake-upstream');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const route = generationRoutes[url.pathname] ?? tokenCountRoutes[url.pathname];
  return {
    method: request.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers,
    body: parseJson(rawBody),
    rawBody,
    dialect: route?.dialect,
    clientAborted: false,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export async function startFakeUpstream(options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const requests: RecordedRequest[] = [];
  const replies: FakeReplyScript[] = [];
  const tokenCounts: FakeTokenCountReply[] = [];
  const ids = createFakeIdSource();
  const models = options.models ?? ['fake-model-large', 'fake-model-small'];

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const recorded = recordRequest(request, await readBody(request));
    requests.push(recorded);
    let cutByFake = false;
    response.on('close', () => {
      if (!response.writableFinished && !cutByFake) recorded.clientAborted = true;
    });

    const renderer = generationRoutes[recorded.path] ?? tokenCountRoutes[recorded.path];
    const anthropicStyle =
      renderer?.dialect === 'anthropic' ||
      (renderer === undefined && recorded.headers['anthropic-version'] !== undefined);
    const errorRenderer = renderer ?? (anthropicStyle ? anthropicRenderer : chatRenderer);
    const headers = { [errorRenderer.requestIdHeader]: ids.next('req_') };
    const sendError = (reply: FakeErrorReply) =>
      writeJsonReply(
        response,
        reply.status,
        { ...headers, ...reply.headers },
        reply.errorBody ??
          errorRenderer.renderErrorBody(reply.status, {
            message: reply.errorMessage,
            type: reply.errorType,
          }),
        reply.delayMs,
      );

    const knownRoute =
      (recorded.method === 'POST' && renderer !== undefined) ||
      (recorded.method === 'GET' && recorded.path === '/v1/models');
    if (!knownRoute) {
      return sendError({ status: 404, errorMessage: `fake-upstream: no route ${recorded.path}` });
    }
    if (options.requireKey !== undefined) {
      if (!carriesKey(recorded.headers, options.requireKey, anthropicStyle)) {
        return sendError({ status: 401 });
      }
    }
    if (renderer === undefined) {
      return writeJsonReply(response, 200, headers, renderModelList(models, anthropicStyle));
    }
    const body = recorded.body;
    if (!isObject(body)) {
      return sendError({ status: 400, errorMessage: 'fake-upstream: body is not a JSON object' });
    }

    if (tokenCountRoutes[recorded.path] !== undefined) {
      const script = tokenCounts.shift();
      if (script !== undefined && 'status' in script) return sendError(script);
      const count = renderTokenCount(recorded.path, script, recorded.rawBody);
      return writeJsonReply(response, 200, headers, count, script?.delayMs);
    }

    const script = replies.shift() ?? defaultFakeReply(renderer.dialect, body);
    const reply = typeof script === 'function' ? script(recorded) : script;
    if (reply.status !== undefined) return sendError(reply);
    const resolved = resolveFakeReply(reply, recorded);
    const context: RenderContext = {
      request: recorded,
      body,
      ids,
      createdAt: Math.floor(Date.now() / 1000),
    };
    const replyHeaders = { ...headers, ...reply.headers };
    if (body.stream !== true || renderer.renderStream === undefined) {
      const rendered = renderer.renderJson(resolved, context);
      return writeJsonReply(response, 200, replyHeaders, rendered, reply.delayMs);
    }
    return writeSseReply(response, replyHeaders, renderer.renderStream(resolved, context), {
      delayMs: reply.delayMs,
      chunkDelayMs: reply.chunkDelayMs,
      cutAfterEvents: reply.cutAfterEvents,
      cutMode: reply.cutMode,
      brokenFrameAt: reply.brokenFrameAt,
      onCut: () => {
        cutByFake = true;
      },
    });
  }

  const server = createServer((request, response) => {
    answer(request, response).catch((error: unknown) => {
      // A script mistake (e.g. tool arguments that are not JSON) surfaces as a 500 naming it.
      const message = error instanceof Error ? error.message : String(error);
      if (response.headersSent) return void response.destroy();
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { type: 'fake_upstream_error', message } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...scripts) => void replies.push(...scripts),
    enqueueTokenCount: (...scripts) => void tokenCounts.push(...scripts),
    get pendingReplies() {
      return replies.length;
    },
    reset() {
      requests.length = 0;
      replies.length = 0;
      tokenCounts.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
