import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  carriesKey,
  presentedKey,
  renderModelList,
  renderTokenCount,
} from './answer-fake-upstream-extras.ts';
import { defaultFakeReply } from './default-fake-reply.ts';
import type { FakeDialectRenderer, RenderContext, WireRoute } from './fake-dialect-renderer.ts';
import { createFakeIdSource } from './fake-ids.ts';
import type { FakeWireHandler, FakeWireState } from './fake-wire-handler.ts';
import type { FakeKeyBehaviour } from './fake-key-behaviour.ts';
import type { FakeWire, FakeWireRoute } from './fake-wire.ts';
import { createFakePromptCache } from './fake-prompt-cache.ts';
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
import { renderRateLimitHeaders } from './render-rate-limit-headers.ts';
import type { FakeRateLimits } from './render-rate-limit-headers.ts';
import { estimateTokens, resolveFakeReply } from './resolve-fake-reply.ts';
import { writeJsonReply, writeSseReply } from './write-fake-reply.ts';
import { azurePromptFilterChunk, matchAzureRoute, presentedAzureKey } from './wire-azure-openai.ts';
import { createBedrockWire, type FakeBedrockOptions } from './wire-bedrock.ts';
import { matchGeminiWire } from './wire-gemini.ts';

export type * from './fake-reply.ts';
export type { FakeKeyBehaviour } from './fake-key-behaviour.ts';
export type { FakeRateLimits } from './render-rate-limit-headers.ts';
export type { FakeWire } from './fake-wire.ts';
export type { FakeAwsCredentials, FakeBedrockOptions } from './wire-bedrock.ts';

export interface FakeUpstreamOptions {
  /** Answer 401 unless the request carries this key (see `carriesKey`). */
  requireKey?: string;
  /** Model ids listed by `GET /v1/models`. */
  models?: string[];
  /** Keep a prompt cache per upstream key on the generation routes (see fake-prompt-cache.ts). */
  promptCache?: boolean;
  /** Milliseconds since the epoch, for cache lifetimes and reset times; `Date.now` by default. */
  now?: () => number;
  /** Cloud wire formats (e.g. `createFakeVertex().wire`), asked before the dialects' own routes. */
  wires?: FakeWire[];
  /** Amazon Bedrock's routes (`/model/{modelId}/…`): the SigV4 credentials they accept. */
  bedrock?: FakeBedrockOptions;
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
  /** Applies `behaviour` to every later request presenting `key`, replacing its previous rule. */
  behaveForKey(key: string, behaviour: FakeKeyBehaviour): void;
  clearKeyBehaviour(key: string): void;
  /**
   * Sends the provider's rate-limit headers on every answer to `key` (errors too, as providers
   * do): `anthropic-ratelimit-*` in the Anthropic style, `x-ratelimit-*` on the OpenAI routes.
   * `undefined` stops them.
   */
  rateLimitHeadersForKey(key: string, limits: FakeRateLimits | undefined): void;
  /** Forgets the prompt cache of one key, or of every key. */
  clearPromptCache(key?: string): void;
  /** Clears requests, queues, key rules, rate-limit headers and the prompt cache. */
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

/** Routes a provider's wire file matches by pattern (the model in the path, its own key header). */
const wireRoutes: Array<(path: string) => WireRoute | undefined> = [matchGeminiWire];

function matchWireRoute(path: string): WireRoute | undefined {
  for (const match of wireRoutes) {
    const route = match(path);
    if (route !== undefined) return route;
  }
  return undefined;
}

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

/** Anthropic's routes, or any other route asked in its style (e.g. `GET /v1/models`). */
function isAnthropicStyle(
  route: FakeDialectRenderer | undefined,
  headers: Record<string, string>,
): boolean {
  return (
    route?.dialect === 'anthropic' ||
    (route === undefined && headers['anthropic-version'] !== undefined)
  );
}

function recordRequest(request: IncomingMessage, rawBody: string): RecordedRequest {
  const url = new URL(request.url ?? '/', 'http://fake-upstream');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const azure = matchAzureRoute(url.pathname);
  const routePath = azure?.route ?? url.pathname;
  const wire = matchWireRoute(url.pathname);
  const route = generationRoutes[routePath] ?? tokenCountRoutes[routePath] ?? wire?.renderer;
  return {
    method: request.method ?? 'GET',
    path: url.pathname,
    route: routePath,
    ...(azure !== undefined ? { wire: 'azure-openai' as const } : {}),
    query: Object.fromEntries(url.searchParams),
    headers,
    body: parseJson(rawBody),
    rawBody,
    dialect: route?.dialect,
    key:
      azure !== undefined
        ? presentedAzureKey(headers)
        : (wire?.presentedKey(headers) ?? presentedKey(headers, isAnthropicStyle(route, headers))),
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
  const now = options.now ?? Date.now;
  const keyBehaviours = new Map<string, FakeKeyBehaviour>();
  const keyRateLimits = new Map<string, FakeRateLimits>();
  const promptCache = options.promptCache === true ? createFakePromptCache(now) : undefined;
  const handlers: FakeWireHandler[] = [createBedrockWire(options.bedrock)];
  const wireState: FakeWireState = {
    takeReply: () => replies.shift(),
    takeTokenCount: () => tokenCounts.shift(),
    keyRule: (key) => (key === undefined ? undefined : keyBehaviours.get(key)),
    promptCache,
    ids,
    requireKey: options.requireKey,
  };

  async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const recorded = recordRequest(request, await readBody(request));
    requests.push(recorded);
    if (options.wires?.some((wire) => wire.answerOwnRoute?.(recorded, response) === true)) return;
    let wireRoute: FakeWireRoute | undefined;
    for (const wire of options.wires ?? []) wireRoute ??= wire.route(recorded);
    if (wireRoute !== undefined) {
      recorded.dialect = wireRoute.renderer.dialect;
      recorded.key = wireRoute.key;
    }
    let cutByFake = false;
    response.on('close', () => {
      if (!response.writableFinished && !cutByFake) recorded.clientAborted = true;
    });
    const ownWire = handlers.find((candidate) => candidate.matches(recorded.path));
    if (ownWire !== undefined) {
      return ownWire.answer(recorded, response, wireState, () => {
        cutByFake = true;
      });
    }

    const wire = wireRoute === undefined ? matchWireRoute(recorded.path) : undefined;
    const renderer =
      wireRoute?.renderer ??
      generationRoutes[recorded.route] ??
      tokenCountRoutes[recorded.route] ??
      wire?.renderer;
    const anthropicStyle = isAnthropicStyle(renderer, recorded.headers);
    const errorRenderer = renderer ?? (anthropicStyle ? anthropicRenderer : chatRenderer);
    const headers = { [errorRenderer.requestIdHeader]: ids.next('req_') };
    // A key's delay rule holds back whatever the request is answered with.
    let heldMs = 0;
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
        heldMs + (reply.delayMs ?? 0),
      );

    const knownRoute =
      (recorded.method === 'POST' && renderer !== undefined) ||
      (recorded.method === 'GET' && recorded.path === '/v1/models');
    if (!knownRoute) {
      return sendError({ status: 404, errorMessage: `fake-upstream: no route ${recorded.path}` });
    }
    if (recorded.wire === 'azure-openai' && matchAzureRoute(recorded.path)?.versioned === true) {
      if (recorded.query['api-version'] === undefined)
        return sendError({ status: 404, errorMessage: 'Resource not found' });
    }
    const key = recorded.key;
    const limits = key === undefined ? undefined : keyRateLimits.get(key);
    if (limits !== undefined) {
      Object.assign(headers, renderRateLimitHeaders(limits, anthropicStyle, now()));
    }
    const rule = key === undefined ? undefined : keyBehaviours.get(key);
    if (rule !== undefined && 'dropConnection' in rule) {
      if ((rule.delayMs ?? 0) > 0) await sleep(rule.delayMs);
      cutByFake = true;
      return void response.destroy();
    }
    if (rule?.status !== undefined) return sendError(rule);
    heldMs = rule?.delayMs ?? 0;
    if (wireRoute?.refusal !== undefined) return sendError(wireRoute.refusal);
    if (options.requireKey !== undefined) {
      const carried =
        recorded.wire === 'azure-openai' || wire !== undefined
          ? recorded.key === options.requireKey
          : carriesKey(recorded.headers, options.requireKey, anthropicStyle);
      if (!carried) {
        return sendError({ status: 401 });
      }
    }
    if (renderer === undefined) {
      const list = renderModelList(models, anthropicStyle);
      return writeJsonReply(response, 200, headers, list, heldMs);
    }
    const body = wireRoute?.body ?? recorded.body;
    if (!isObject(body)) {
      return sendError({ status: 400, errorMessage: 'fake-upstream: body is not a JSON object' });
    }

    if (
      wireRoute === undefined
        ? tokenCountRoutes[recorded.route] !== undefined || wire?.renderTokenCount !== undefined
        : wireRoute.kind === 'token-count'
    ) {
      const script = tokenCounts.shift();
      if (script !== undefined && 'status' in script) return sendError(script);
      const count =
        (wireRoute ?? wire)?.renderTokenCount?.(
          script?.inputTokens ?? Math.max(1, estimateTokens(recorded.rawBody)),
        ) ?? renderTokenCount(recorded.route, script, recorded.rawBody);
      return writeJsonReply(response, 200, headers, count, heldMs + (script?.delayMs ?? 0));
    }

    const refusal = wire?.refuse?.(body);
    if (refusal !== undefined) return sendError(refusal);
    // A route that names the model in its path answers as if the body named it.
    const modelBody = wire?.model === undefined ? body : { ...body, model: wire.model };
    const script = replies.shift() ?? defaultFakeReply(renderer.dialect, body);
    const reply = typeof script === 'function' ? script(recorded) : script;
    if (reply.status !== undefined) return sendError(reply);
    // The cache splits the prompt's count; counts the script gives still win.
    const cached =
      renderer === responsesCompactionRenderer
        ? undefined
        : promptCache?.usageFor(renderer.dialect, key, modelBody, estimateTokens(recorded.rawBody));
    const resolved = resolveFakeReply(
      { ...reply, usage: { ...cached, ...reply.usage } },
      { ...recorded, body: modelBody },
    );
    const context: RenderContext = {
      request: recorded,
      body,
      ids,
      createdAt: Math.floor(Date.now() / 1000),
    };
    const replyHeaders = { ...headers, ...reply.headers };
    const delayMs = heldMs + (reply.delayMs ?? 0);
    if (
      !(wireRoute?.stream ?? wire?.stream ?? body.stream === true) ||
      renderer.renderStream === undefined
    ) {
      const rendered = renderer.renderJson(resolved, context);
      return writeJsonReply(response, 200, replyHeaders, rendered, delayMs);
    }
    let frames = renderer.renderStream(resolved, context);
    // Azure streams the prompt's content-filter results first, in a chunk without choices.
    if (recorded.wire === 'azure-openai' && renderer === chatRenderer)
      frames = [{ data: JSON.stringify(azurePromptFilterChunk) }, ...frames];
    return writeSseReply(response, replyHeaders, frames, {
      delayMs,
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
    behaveForKey: (key, behaviour) => void keyBehaviours.set(key, behaviour),
    clearKeyBehaviour: (key) => void keyBehaviours.delete(key),
    rateLimitHeadersForKey(key, limits) {
      if (limits === undefined) keyRateLimits.delete(key);
      else keyRateLimits.set(key, limits);
    },
    clearPromptCache: (key) => promptCache?.clear(key),
    reset() {
      requests.length = 0;
      replies.length = 0;
      tokenCounts.length = 0;
      keyBehaviours.clear();
      keyRateLimits.clear();
      promptCache?.clear();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
      }),
  };
}
