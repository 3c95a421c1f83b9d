import type { ErrorDetails, FakeDialectRenderer } from './fake-dialect-renderer.ts';
import type { FakeErrorReply, RecordedRequest } from './fake-reply.ts';
import type { FakeWire, FakeWireRoute } from './fake-wire.ts';
import { anthropicRenderer } from './render-anthropic-reply.ts';
import { renderAnthropicErrorBody } from './render-anthropic-error.ts';
import {
  checkGeminiSignatures,
  geminiRenderer,
  renderGeminiResponse,
  renderGeminiStreamFrames,
} from './wire-gemini.ts';
import {
  createFakeGoogleTokens,
  fakeTokenPath,
  type FakeGoogleTokens,
} from './wire-vertex-tokens.ts';

/** What Claude on Vertex AI wants in the body instead of an `anthropic-version` header. */
export const vertexAnthropicVersion = 'vertex-2023-10-16';

/** `google.rpc.Code` names Google's APIs answer with, by HTTP status. */
const googleStatuses: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const googleMessages: Record<string, string> = {
  UNAUTHENTICATED:
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  PERMISSION_DENIED: "Permission 'aiplatform.endpoints.predict' denied on resource.",
  NOT_FOUND: 'Publisher Model was not found or your project does not have access to it.',
  RESOURCE_EXHAUSTED:
    'Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: anthropic-claude. Please submit a quota increase request.',
};

/**
 * Vertex AI's own refusals (credentials, quota, unknown model) come in Google's error shape,
 * `{error: {code, message, status}}`; what the Anthropic publisher refuses comes in Anthropic's.
 * A scripted `errorType` in capitals (`RESOURCE_EXHAUSTED`) asks for Google's shape; without one,
 * 401, 403, 404 and 429 are Google's and other statuses Anthropic's.
 */
export function renderVertexErrorBody(status: number, details: ErrorDetails): unknown {
  const googleStyle =
    details.type === undefined
      ? [401, 403, 404, 429].includes(status)
      : /^[A-Z_]+$/.test(details.type);
  if (!googleStyle) return renderAnthropicErrorBody(status, details);
  const code = details.type ?? googleStatuses[status] ?? 'UNKNOWN';
  return {
    error: {
      code: status,
      message: details.message ?? googleMessages[code] ?? 'Error',
      status: code,
    },
  };
}

const vertexAnthropicRenderer: FakeDialectRenderer = {
  ...anthropicRenderer,
  renderErrorBody: renderVertexErrorBody,
};

/** `/v1/projects/{project}/locations/{region}/publishers/{publisher}/models/{model}:{method}` */
const modelRoute =
  /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/([^/]+)\/models\/([^/:]+):([A-Za-z]+)$/;

function badRequest(message: string): FakeErrorReply {
  return { status: 400, errorType: 'invalid_request_error', errorMessage: message };
}

/** What Vertex refuses in a Claude body, as its Anthropic publisher words it; undefined: fine. */
function checkAnthropicBody(
  body: Record<string, unknown>,
  counting: boolean,
  stream: boolean,
): FakeErrorReply | undefined {
  if (body.anthropic_version !== vertexAnthropicVersion)
    return badRequest(`anthropic_version: expected "${vertexAnthropicVersion}"`);
  if (counting)
    return typeof body.model === 'string' ? undefined : badRequest('model: Field required');
  if (body.model !== undefined) return badRequest('model: Extra inputs are not permitted');
  if ((body.stream === true) !== stream)
    return badRequest(
      stream ? 'streamRawPredict needs "stream": true' : 'rawPredict cannot stream',
    );
  return undefined;
}

/**
 * Gemini on Vertex AI: Google's publisher takes the Gemini API's body and answers in its shapes
 * (rendered by the Gemini wire's functions), streams only as server-sent events with `alt=sse`,
 * and counts at `:countTokens` (`{totalTokens}`). Its refusals are all in Google's shape.
 */
function routeGemini(
  model: string,
  method: string,
  key: string | undefined,
  body: Record<string, unknown>,
  request: RecordedRequest,
): FakeWireRoute {
  const renderer: FakeDialectRenderer = {
    ...geminiRenderer,
    renderJson: (reply, context) => renderGeminiResponse(reply, context, model),
    renderStream: (reply, context) => renderGeminiStreamFrames(reply, context, model),
  };
  const counting = method === 'countTokens';
  const answer = (refusal?: FakeErrorReply): FakeWireRoute => ({
    renderer,
    kind: counting ? 'token-count' : 'generation',
    stream: method === 'streamGenerateContent',
    key,
    body: { ...body, model },
    ...(counting
      ? { renderTokenCount: (inputTokens: number) => ({ totalTokens: inputTokens }) }
      : {}),
    ...(refusal !== undefined ? { refusal } : {}),
  });
  if (key === undefined) return answer({ status: 401 });
  if (!['generateContent', 'streamGenerateContent', 'countTokens'].includes(method))
    return answer({ status: 404 });
  if (method === 'streamGenerateContent' && request.query.alt !== 'sse')
    return answer({
      status: 400,
      errorType: 'INVALID_ARGUMENT',
      errorMessage:
        'fake-upstream: streamGenerateContent answers server-sent events only with alt=sse',
    });
  if (body.model !== undefined)
    return answer({
      status: 400,
      errorType: 'INVALID_ARGUMENT',
      errorMessage: 'Invalid JSON payload received. Unknown name "model": Cannot find field.',
    });
  const problem = counting ? undefined : checkGeminiSignatures(body, model);
  return answer(
    problem === undefined
      ? undefined
      : { status: 400, errorType: 'INVALID_ARGUMENT', errorMessage: problem },
  );
}

export interface FakeVertex {
  /** Give to `startFakeUpstream({ wires: [...] })`. */
  wire: FakeWire;
  tokens: FakeGoogleTokens;
  /** Every `{project, region, publisher, model, method}` the Vertex routes were asked, in order. */
  calls: Array<{
    project: string;
    region: string;
    publisher: string;
    model: string;
    method: string;
  }>;
  reset(): void;
}

/**
 * Vertex AI as the fake plays it: Claude through the Anthropic publisher's `rawPredict` and
 * `streamRawPredict` (the Messages body without `model`, with `anthropic_version`), its
 * `count-tokens:rawPredict`, Gemini through Google's publisher (`routeGemini`), an OAuth access token from the fake's own token endpoint on every
 * call (`Authorization: Bearer`, else 401 in Google's shape), and Google's token endpoint itself.
 * A request's key is the service account its token was issued to, so `behaveForKey` and the
 * prompt cache work per service account.
 */
export function createFakeVertex(now: () => number = Date.now): FakeVertex {
  const tokens = createFakeGoogleTokens(now);
  const calls: FakeVertex['calls'] = [];

  function route(request: RecordedRequest): FakeWireRoute | undefined {
    const match = modelRoute.exec(request.path);
    if (match === null || request.method !== 'POST') return undefined;
    const [, project, region, publisher, model, method] = match as unknown as string[] as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    calls.push({ project, region, publisher, model, method });
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
    const key = bearer === null ? undefined : tokens.holderOf(bearer[1] as string);
    const raw = request.body;
    const body =
      typeof raw === 'object' && raw !== null && !Array.isArray(raw)
        ? (raw as Record<string, unknown>)
        : {};
    if (publisher === 'google') return routeGemini(model, method, key, body, request);
    const counting = model === 'count-tokens';
    const stream = method === 'streamRawPredict';
    const answer = (refusal?: FakeErrorReply): FakeWireRoute => ({
      renderer: vertexAnthropicRenderer,
      kind: counting ? 'token-count' : 'generation',
      stream,
      key,
      // The renderer and the prompt cache read the model where the Messages API has it.
      body: counting ? body : { ...body, model },
      ...(refusal !== undefined ? { refusal } : {}),
    });
    if (key === undefined) return answer({ status: 401 });
    if (publisher !== 'anthropic' || !(method === 'rawPredict' || (stream && !counting)))
      return answer({ status: 404 });
    return answer(checkAnthropicBody(body, counting, stream));
  }

  return {
    wire: {
      answerOwnRoute(request, response) {
        if (request.method !== 'POST' || request.path !== fakeTokenPath) return false;
        tokens.answer(request, response);
        return true;
      },
      route,
    },
    tokens,
    calls,
    reset() {
      calls.length = 0;
      tokens.reset();
    },
  };
}
