import { setTimeout as sleep } from 'node:timers/promises';
import type { FakeWireHandler, FakeWireState } from './fake-wire-handler.ts';
import type { RenderContext } from './fake-dialect-renderer.ts';
import type { FakeErrorReply, FakeSuccessReply, RecordedRequest } from './fake-reply.ts';
import { anthropicRenderer } from './render-anthropic-reply.ts';
import { renderConverseJson, renderConverseStream } from './render-bedrock-converse-reply.ts';
import { defaultFakeReply } from './default-fake-reply.ts';
import { estimateTokens, resolveFakeReply } from './resolve-fake-reply.ts';
import { verifyBedrockSignature, type FakeAwsCredentials } from './verify-bedrock-signature.ts';
import { writeJsonReply } from './write-fake-reply.ts';
import {
  chunkFrame,
  eventFrame,
  exceptionFrame,
  writeBedrockEventStream,
  type BedrockFrame,
} from './write-bedrock-event-stream.ts';

export type { FakeAwsCredentials } from './verify-bedrock-signature.ts';

const route =
  /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream|converse|converse-stream|count-tokens)$/;

/** Bedrock Runtime's error names by status ("Common errors" and the operations' errors). */
const exceptionByStatus: Record<number, string> = {
  400: 'ValidationException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
};

const defaultMessages: Record<string, string> = {
  ValidationException: 'Malformed input request, please reformat your input and try again.',
  AccessDeniedException: "You don't have access to the model with the specified model ID.",
  ResourceNotFoundException: 'The provided model identifier is invalid.',
  ThrottlingException: 'Too many requests, please wait before trying again.',
  ServiceUnavailableException: 'Bedrock is unable to process your request.',
  ModelErrorException: 'The model returned an error.',
  InternalServerException: 'The server encountered an internal error.',
};

function exceptionName(reply: FakeErrorReply): string {
  if (reply.errorType?.endsWith('Exception') === true) return reply.errorType;
  return (
    exceptionByStatus[reply.status] ??
    (reply.status >= 500 ? 'InternalServerException' : 'ValidationException')
  );
}

/** A stream exception for the dialect-neutral mid-stream error of a script. */
function streamExceptionName(type: string | undefined): string {
  if (type?.endsWith('Exception') === true) return type;
  if (type === 'rate_limit_error') return 'throttlingException';
  if (type === 'overloaded_error') return 'serviceUnavailableException';
  return 'modelStreamErrorException';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** Converse blocks with `cachePoint` blocks read as markers on the block before them. */
function markedBlocks(blocks: unknown[]): unknown[] {
  const marked: unknown[] = [];
  for (const block of blocks) {
    if (isObject(block) && isObject(block.cachePoint)) {
      const previous = marked.at(-1);
      if (isObject(previous)) {
        const ttl = block.cachePoint.ttl === '1h' ? { ttl: '1h' } : {};
        marked[marked.length - 1] = { ...previous, cache_control: { type: 'ephemeral', ...ttl } };
      }
      continue;
    }
    marked.push(block);
  }
  return marked;
}

/**
 * A Converse body as the Anthropic-style prompt the fake prompt cache reads: Bedrock caches
 * Converse prompts up to their cache points in the same order (tools, system, messages).
 */
function converseAsCachedPrompt(model: string, body: Record<string, unknown>) {
  const toolConfig = isObject(body.toolConfig) ? body.toolConfig : {};
  return {
    model,
    tools: markedBlocks(listOf(toolConfig.tools)),
    system: markedBlocks(listOf(body.system)),
    messages: listOf(body.messages).map((message) =>
      isObject(message) ? { ...message, content: markedBlocks(listOf(message.content)) } : message,
    ),
  };
}

/** The echo reply of a Converse request: its last user text. */
function converseEcho(body: Record<string, unknown>): FakeSuccessReply {
  for (const message of [...listOf(body.messages)].reverse()) {
    if (!isObject(message) || message.role !== 'user') continue;
    const texts = listOf(message.content).flatMap((block) =>
      isObject(block) && typeof block.text === 'string' ? [block.text] : [],
    );
    if (texts.length > 0) return { output: [{ text: `echo: ${texts.join('')}` }] };
  }
  return { output: [{ text: 'ok' }] };
}

/** The prompt a CountTokens body names: the invoke body (base64) or the Converse input. */
function countedPrompt(body: Record<string, unknown>): string {
  const input = isObject(body.input) ? body.input : {};
  if (isObject(input.invokeModel) && typeof input.invokeModel.body === 'string') {
    return Buffer.from(input.invokeModel.body, 'base64').toString('utf8');
  }
  return JSON.stringify(input.converse ?? {});
}

export interface FakeBedrockOptions {
  /** AWS credentials whose SigV4 signatures the fake accepts (their access key id is the key). */
  credentials?: FakeAwsCredentials[];
}

/**
 * Amazon Bedrock Runtime: InvokeModel (the Anthropic Messages body with `anthropic_version`
 * `bedrock-2023-05-31`, answered in the Messages shape; streamed as base64 `chunk` events),
 * Converse and ConverseStream, CountTokens. A request is signed with SigV4 (checked against the
 * known credentials) or carries a Bedrock API key as a Bearer token. Errors are `{"message"}`
 * with the exception's name in `x-amzn-errortype`; stream failures are exception messages.
 */
export function createBedrockWire(options: FakeBedrockOptions = {}): FakeWireHandler {
  const credentials = options.credentials ?? [];

  async function authenticate(
    recorded: RecordedRequest,
    state: FakeWireState,
  ): Promise<FakeErrorReply | undefined> {
    const authorization = recorded.headers.authorization ?? '';
    const bearer = /^Bearer (.+)$/.exec(authorization)?.[1];
    if (bearer !== undefined) {
      recorded.key = bearer;
      if (state.requireKey === undefined || bearer === state.requireKey) return undefined;
      return {
        status: 403,
        errorType: 'AccessDeniedException',
        errorMessage: 'Authentication failed: Please make sure your API Key is valid.',
      };
    }
    if (authorization.startsWith('AWS4-HMAC-SHA256 ')) {
      const check = await verifyBedrockSignature(recorded, credentials);
      if (check.accessKeyId !== undefined) recorded.key = check.accessKeyId;
      if (check.ok) return undefined;
      return { status: check.status, errorType: check.errorType, errorMessage: check.message };
    }
    if (state.requireKey === undefined && credentials.length === 0) return undefined;
    return {
      status: 403,
      errorType: 'AccessDeniedException',
      errorMessage: 'Missing Authentication Token',
    };
  }

  return {
    matches: (path) => route.test(path),
    async answer(recorded, response, state, markCut) {
      const [, encodedModel = '', operation = ''] = route.exec(recorded.path) ?? [];
      const modelId = decodeURIComponent(encodedModel);
      recorded.wire = 'bedrock';
      const headers: Record<string, string> = { 'x-amzn-requestid': state.ids.next('') };
      let heldMs = 0;
      const sendError = (reply: FakeErrorReply) => {
        const name = exceptionName(reply);
        return writeJsonReply(
          response,
          reply.status,
          {
            ...headers,
            'x-amzn-errortype': `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
            ...reply.headers,
          },
          reply.errorBody ?? { message: reply.errorMessage ?? defaultMessages[name] ?? name },
          heldMs + (reply.delayMs ?? 0),
        );
      };

      const refused = await authenticate(recorded, state);
      const rule = state.keyRule(recorded.key);
      if (rule !== undefined && 'dropConnection' in rule) {
        if ((rule.delayMs ?? 0) > 0) await sleep(rule.delayMs);
        markCut();
        return void response.destroy();
      }
      if (rule?.status !== undefined) return sendError(rule);
      heldMs = rule?.delayMs ?? 0;
      if (refused !== undefined) return sendError(refused);
      const body = recorded.body;
      if (!isObject(body))
        return sendError({
          status: 400,
          errorMessage: 'Malformed input request: body is not a JSON object.',
        });

      if (operation === 'count-tokens') {
        const script = state.takeTokenCount();
        if (script !== undefined && 'status' in script) return sendError(script);
        const inputTokens = script?.inputTokens ?? Math.max(1, estimateTokens(countedPrompt(body)));
        return writeJsonReply(
          response,
          200,
          headers,
          { inputTokens },
          heldMs + (script?.delayMs ?? 0),
        );
      }

      const invoke = operation.startsWith('invoke');
      if (invoke) {
        recorded.dialect = 'anthropic';
        if (body.anthropic_version !== 'bedrock-2023-05-31') {
          return sendError({
            status: 400,
            errorMessage:
              'Malformed input request: #: required key [anthropic_version] not found, please reformat your input and try again.',
          });
        }
        for (const key of ['model', 'stream']) {
          if (key in body) {
            return sendError({
              status: 400,
              errorMessage: `Malformed input request: #: extraneous key [${key}] is not permitted, please reformat your input and try again.`,
            });
          }
        }
      } else if (!Array.isArray(body.messages)) {
        return sendError({
          status: 400,
          errorMessage: 'A conversation must start with a user message.',
        });
      }

      const script =
        state.takeReply() ?? (invoke ? defaultFakeReply('anthropic', body) : converseEcho(body));
      // The reply's model, the cache's model key and the echo read the model from the body.
      const withModel = { ...recorded, body: { ...body, model: modelId } };
      const reply = typeof script === 'function' ? script(withModel) : script;
      if (reply.status !== undefined) return sendError(reply);
      const prompt = invoke ? withModel.body : converseAsCachedPrompt(modelId, body);
      const cached = state.promptCache?.usageFor(
        'anthropic',
        recorded.key,
        prompt,
        estimateTokens(recorded.rawBody),
      );
      const resolved = resolveFakeReply(
        { ...reply, usage: { ...cached, ...reply.usage } },
        withModel,
      );
      const context: RenderContext = {
        request: withModel,
        body: withModel.body,
        ids: state.ids,
        createdAt: Math.floor(Date.now() / 1000),
      };
      const replyHeaders = { ...headers, ...reply.headers };
      const delayMs = heldMs + (reply.delayMs ?? 0);
      if (operation === 'invoke' || operation === 'converse') {
        const rendered = invoke
          ? anthropicRenderer.renderJson(resolved, context)
          : renderConverseJson(resolved, context);
        return writeJsonReply(response, 200, replyHeaders, rendered, delayMs);
      }
      let frames: BedrockFrame[] = invoke
        ? (
            anthropicRenderer.renderStream?.({ ...resolved, midStreamError: undefined }, context) ??
            []
          ).map((frame) => chunkFrame(frame.data))
        : renderConverseStream(resolved, context).map((event) =>
            eventFrame(event.eventType, event.payload),
          );
      const failure = resolved.midStreamError;
      if (failure !== undefined) {
        frames = [
          ...frames.slice(0, failure.afterEvents),
          exceptionFrame(
            streamExceptionName(failure.type),
            failure.message ?? 'The model stream failed.',
          ),
        ];
      }
      return writeBedrockEventStream(response, replyHeaders, frames, {
        delayMs,
        chunkDelayMs: reply.chunkDelayMs,
        cutAfterEvents: reply.cutAfterEvents,
        cutMode: reply.cutMode,
        onCut: markCut,
      });
    },
  };
}
