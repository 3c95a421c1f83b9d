import { createHash } from 'node:crypto';
import type {
  ErrorDetails,
  FakeDialectRenderer,
  RenderContext,
  WireRoute,
} from './fake-dialect-renderer.ts';
import type { FakeOutputBlock } from './fake-reply.ts';
import type { ResolvedReply, ResolvedUsage } from './resolve-fake-reply.ts';
import { totalInputTokens } from './resolve-fake-reply.ts';
import { splitIntoDeltas } from './split-into-deltas.ts';
import { jsonFrame, type SseFrame } from './sse-frame.ts';

/**
 * Gemini's `generateContent` wire as the fake speaks it: the Gemini API's routes here, and the
 * rendering Vertex AI's `publishers/google` routes reuse (the same bodies and SSE frames).
 */

type Json = Record<string, unknown>;
type Part = Json;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A matched Gemini API route: `/v1beta/models/{model}:{method}`. */
export interface GeminiRoute {
  model: string;
  method: 'generateContent' | 'streamGenerateContent' | 'countTokens';
}

const routePattern =
  /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

export function matchGeminiRoute(path: string): GeminiRoute | undefined {
  const match = routePattern.exec(path);
  if (match === null) return undefined;
  return { model: decodeURIComponent(match[1]!), method: match[2] as GeminiRoute['method'] };
}

/**
 * A deterministic `thoughtSignature` for a part: a digest of the part itself, so the fake can
 * tell on the next turn whether the signature came back byte-exact on the same part.
 */
export function fakeGeminiSignature(part: Part): string {
  const { thoughtSignature: _signature, ...content } = part;
  return Buffer.from(
    `fake-gemini-signature:${createHash('sha256').update(JSON.stringify(content)).digest('hex')}`,
  ).toString('base64');
}

/** Google's canonical error code for an HTTP status (google.rpc.Code). */
function googleStatus(status: number): string {
  switch (status) {
    case 400:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION';
  }
}

/** The wait a fake 429 names in its RetryInfo, as Gemini's quota errors do. */
export const fakeGeminiRetryDelaySeconds = 12;

/** Google's error body: `{error: {code, message, status, details}}`; a 429 carries RetryInfo. */
export function renderGoogleErrorBody(status: number, details: ErrorDetails): unknown {
  const code = details.type ?? googleStatus(status);
  return {
    error: {
      code: status,
      message:
        details.message ??
        (status === 429
          ? 'Resource has been exhausted (e.g. check quota).'
          : status === 401 || status === 403
            ? 'API key not valid. Please pass a valid API key.'
            : `fake-upstream: ${code}`),
      status: code,
      ...(status === 429
        ? {
            details: [
              {
                '@type': 'type.googleapis.com/google.rpc.RetryInfo',
                retryDelay: `${fakeGeminiRetryDelaySeconds}s`,
              },
            ],
          }
        : {}),
    },
  };
}

/** Gemini counts cached reads inside `promptTokenCount`, thoughts apart from the candidates. */
function usageMetadata(usage: ResolvedUsage): Json {
  const prompt = totalInputTokens(usage);
  const candidates = usage.output - usage.reasoning;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + usage.output,
    ...(usage.cacheRead > 0 ? { cachedContentTokenCount: usage.cacheRead } : {}),
    ...(usage.reasoning > 0 ? { thoughtsTokenCount: usage.reasoning } : {}),
  };
}

const finishWords = {
  stop: 'STOP',
  tool_calls: 'STOP',
  length: 'MAX_TOKENS',
  content_filter: 'SAFETY',
} as const;

function callPart(block: Extract<FakeOutputBlock, { toolCall: unknown }>): Part {
  const call = block.toolCall;
  return {
    functionCall: {
      ...(call.id !== undefined ? { id: call.id } : {}),
      name: call.name,
      args: JSON.parse(call.arguments) as unknown,
    },
  };
}

/**
 * The answer's parts in order, thoughts as `thought: true` parts. With thinking in the answer,
 * a signature goes where Gemini 3 puts it: on the first function call, or else on the last part
 * (an empty text part when the answer has no text).
 */
function answerParts(output: FakeOutputBlock[]): Part[] {
  const parts: Part[] = output.map((block) => {
    if ('text' in block) return { text: block.text };
    if ('reasoning' in block) return { text: block.reasoning.text ?? '', thought: true };
    return callPart(block);
  });
  if (!output.some((block) => 'reasoning' in block)) return parts;
  let signed = parts.findIndex((part) => part.functionCall !== undefined);
  if (signed === -1) {
    if (parts.at(-1)?.thought === true) parts.push({ text: '' });
    signed = parts.length - 1;
  }
  const part = parts[signed]!;
  parts[signed] = { ...part, thoughtSignature: fakeGeminiSignature(part) };
  return parts;
}

function envelope(reply: ResolvedReply, context: RenderContext, model: string) {
  return {
    modelVersion: reply.model === 'fake-model' ? model : reply.model,
    responseId: reply.id ?? context.ids.next('gemini-'),
  };
}

/** A `generateContent` answer (GenerateContentResponse) for `model`. */
export function renderGeminiResponse(
  reply: ResolvedReply,
  context: RenderContext,
  model: string,
): unknown {
  return {
    candidates: [
      {
        content: { role: 'model', parts: answerParts(reply.output) },
        finishReason: finishWords[reply.finishReason],
        index: 0,
      },
    ],
    usageMetadata: usageMetadata(reply.usage),
    ...envelope(reply, context, model),
  };
}

/**
 * The `streamGenerateContent?alt=sse` frames: text and thoughts in small pieces, a function
 * call whole in its own chunk (with its signature), a text's signature on an empty part after
 * it, the finish reason and full usage on the last. Every chunk carries
 * the prompt count, as Gemini's do.
 */
export function renderGeminiStreamFrames(
  reply: ResolvedReply,
  context: RenderContext,
  model: string,
): SseFrame[] {
  const ids = envelope(reply, context, model);
  const chunks: Part[][] = [];
  for (const part of answerParts(reply.output)) {
    if (part.functionCall !== undefined) {
      chunks.push([part]);
      continue;
    }
    const { text, thoughtSignature, ...rest } = part;
    const pieces = splitIntoDeltas(String(text));
    if (pieces.length === 0 && thoughtSignature === undefined) pieces.push('');
    for (const piece of pieces) chunks.push([{ text: piece, ...rest }]);
    // A streamed text's signature comes after it, on an empty part of its own, as Gemini sends it.
    if (thoughtSignature !== undefined) {
      chunks.push([{ text: '', thoughtSignature: fakeGeminiSignature({ text: '' }) }]);
    }
  }
  if (chunks.length === 0) chunks.push([]);
  const frames = chunks.map((parts, index) => {
    const final = index === chunks.length - 1;
    return jsonFrame({
      candidates: [
        {
          content: { role: 'model', parts },
          ...(final ? { finishReason: finishWords[reply.finishReason] } : {}),
          index: 0,
        },
      ],
      usageMetadata: final
        ? usageMetadata(reply.usage)
        : { promptTokenCount: totalInputTokens(reply.usage) },
      ...ids,
    });
  });
  const failure = reply.midStreamError;
  if (failure === undefined) return frames;
  const error = renderGoogleErrorBody(500, { message: failure.message, type: failure.type });
  return [...frames.slice(0, failure.afterEvents), jsonFrame(error)];
}

/** The index of the first content of the turn in progress: after the last user text. */
function currentTurnStart(contents: Json[]): number {
  for (let index = contents.length - 1; index >= 0; index -= 1) {
    const content = contents[index]!;
    const parts = Array.isArray(content.parts) ? content.parts : [];
    if (
      content.role === 'user' &&
      parts.some((part) => isObject(part) && typeof part.text === 'string')
    ) {
      return index;
    }
  }
  return 0;
}

/**
 * Checks the signatures a request replays, as Gemini does: a signature must be the one issued
 * for that very part (400 "Corrupted thought signature" otherwise), and Gemini 3 models refuse a
 * turn in progress whose function calls lost theirs. Undefined when the request is acceptable.
 */
export function checkGeminiSignatures(body: Json, model: string): string | undefined {
  const contents = (Array.isArray(body.contents) ? body.contents : []).filter(isObject);
  for (const content of contents) {
    if (content.role !== 'model' || !Array.isArray(content.parts)) continue;
    for (const part of content.parts.filter(isObject)) {
      if (part.thoughtSignature === undefined || part.thought === true) continue;
      if (part.thoughtSignature !== fakeGeminiSignature(part))
        return 'Corrupted thought signature.';
    }
  }
  if (!model.startsWith('gemini-3')) return undefined;
  const start = currentTurnStart(contents);
  for (const [index, content] of contents.entries()) {
    if (index < start || content.role !== 'model' || !Array.isArray(content.parts)) continue;
    const firstCall = content.parts
      .filter(isObject)
      .find((part) => part.functionCall !== undefined);
    if (firstCall !== undefined && firstCall.thoughtSignature === undefined) {
      const name = isObject(firstCall.functionCall) ? String(firstCall.functionCall.name) : '';
      return `Function call \`${name}\` in the ${index + 1}. content block is missing a \`thought_signature\`.`;
    }
  }
  return undefined;
}

/** The text of the last user content, for the echo answer. */
export function lastGeminiUserText(body: Json): string | undefined {
  const contents = Array.isArray(body.contents) ? body.contents.filter(isObject) : [];
  for (const content of [...contents].reverse()) {
    if (content.role !== 'user' || !Array.isArray(content.parts)) continue;
    const texts = content.parts
      .filter(isObject)
      .flatMap((part) => (typeof part.text === 'string' ? [part.text] : []));
    if (texts.length > 0) return texts.join('');
  }
  return undefined;
}

/** The Gemini API's routes. Vertex's routes render through the exported functions above. */
export const geminiRenderer: FakeDialectRenderer = {
  dialect: 'gemini',
  requestIdHeader: 'x-goog-request-id',
  renderJson: (reply, context) =>
    renderGeminiResponse(reply, context, matchGeminiRoute(context.request.path)?.model ?? 'gemini'),
  renderStream: (reply, context) =>
    renderGeminiStreamFrames(
      reply,
      context,
      matchGeminiRoute(context.request.path)?.model ?? 'gemini',
    ),
  renderErrorBody: renderGoogleErrorBody,
};

/** The fake server's route hook for the Gemini API (`x-goog-api-key`, the model in the path). */
export function matchGeminiWire(path: string): WireRoute | undefined {
  const route = matchGeminiRoute(path);
  if (route === undefined) return undefined;
  return {
    renderer: geminiRenderer,
    model: route.model,
    ...(route.method === 'countTokens'
      ? { renderTokenCount: (inputTokens: number) => ({ totalTokens: inputTokens }) }
      : { stream: route.method === 'streamGenerateContent' }),
    presentedKey: (headers) => headers['x-goog-api-key'],
    refuse(body) {
      const problem = checkGeminiSignatures(body, route.model);
      return problem === undefined ? undefined : { status: 400, errorMessage: problem };
    },
  };
}
