import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { usageFromParts, type Usage } from '../../canonical/usage.ts';
import { isJsonObject, parseJsonText } from '../../wire/messages/messages-json-text.ts';
import type { ProviderStreamDecoder, UpstreamEvent } from '../provider-codec.ts';
import {
  readGeminiBlockReason,
  readGeminiCandidate,
  readGeminiParts,
} from './decode-gemini-result.ts';
import { geminiStreamFailure, mapGeminiStreamError } from './map-gemini-error.ts';
import { mapGeminiBlockReason, mapGeminiFinishReason } from './map-gemini-finish-reason.ts';
import { mapGeminiUsage } from './map-gemini-usage.ts';
import { createGeminiToolCallIds } from './mint-gemini-tool-call-id.ts';

type OpenBlock = { kind: 'text'; id: string } | { kind: 'reasoning'; id: string };

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The prompt side of a chunk's usage, known from the first chunk on. */
function promptUsage(raw: unknown): Usage | undefined {
  if (!isJsonObject(raw) || typeof raw.promptTokenCount !== 'number') return undefined;
  const { inputTokens } = mapGeminiUsage({
    promptTokenCount: raw.promptTokenCount,
    cachedContentTokenCount: raw.cachedContentTokenCount,
  });
  return usageFromParts({
    noCache: inputTokens.noCache,
    cacheRead: inputTokens.cacheRead,
    output: 0,
  });
}

/**
 * Gemini `streamGenerateContent?alt=sse` → canonical parts. Every event is a whole
 * GenerateContentResponse holding the next parts; consecutive text (or thought) parts continue
 * one block, whose id is its position in the answer. A function call arrives whole, under its
 * id or a minted one (mint-gemini-tool-call-id.ts). A signature on a thought ends that thought;
 * on any other part it comes first as an empty signed reasoning block (docs/decisions/0153).
 * The answer is over when the stream closes after a finish reason; usage is the last reported.
 */
export function createGeminiStreamDecoder(_call: GenerationCall): ProviderStreamDecoder {
  const ids = createGeminiToolCallIds();
  let open: OpenBlock | undefined;
  let blocks = 0;
  let started = false;
  let closed = false;
  let calledTools = false;
  let responseId: unknown;
  let finishWord: unknown;
  let blockReason: string | undefined;
  let usage: unknown;

  const nextId = () => String(blocks++);

  function close(): StreamPart[] {
    if (open === undefined) return [];
    const block = open;
    open = undefined;
    return block.kind === 'text'
      ? [{ type: 'text-end', id: block.id }]
      : [{ type: 'reasoning-end', id: block.id }];
  }

  function signatureBlock(signature: string): StreamPart[] {
    const id = nextId();
    return [
      { type: 'reasoning-start', id, provider: 'google' },
      { type: 'reasoning-end', id, signature },
    ];
  }

  function decodePart(part: unknown): StreamPart[] {
    if (!isJsonObject(part)) return [];
    const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
    const out: StreamPart[] = [];
    if (part.thought === true) {
      if (open?.kind !== 'reasoning') {
        out.push(...close());
        open = { kind: 'reasoning', id: nextId() };
        out.push({ type: 'reasoning-start', id: open.id, provider: 'google' });
      }
      const delta = text(part.text);
      if (delta !== '') out.push({ type: 'reasoning-delta', id: open.id, delta });
      if (signature !== undefined) {
        out.push({ type: 'reasoning-end', id: open.id, signature });
        open = undefined;
      }
      return out;
    }
    if (signature !== undefined || open?.kind === 'reasoning' || isJsonObject(part.functionCall)) {
      out.push(...close());
    }
    if (signature !== undefined) out.push(...signatureBlock(signature));
    if (isJsonObject(part.functionCall)) {
      const call = part.functionCall;
      const id = ids(responseId, call.id);
      calledTools = true;
      out.push(
        { type: 'tool-input-start', id, toolName: text(call.name) },
        {
          type: 'tool-input-delta',
          id,
          delta: JSON.stringify(isJsonObject(call.args) ? call.args : {}),
        },
        { type: 'tool-input-end', id },
      );
      return out;
    }
    const delta = text(part.text);
    if (delta === '') return out;
    if (open === undefined) {
      open = { kind: 'text', id: nextId() };
      out.push({ type: 'text-start', id: open.id });
    }
    out.push({ type: 'text-delta', id: open.id, delta });
    return out;
  }

  function handle(chunk: Record<string, unknown>): StreamPart[] {
    if (chunk.error !== undefined) {
      closed = true;
      return [...close(), { type: 'error', error: mapGeminiStreamError(chunk) }];
    }
    const out: StreamPart[] = [];
    if (!started) {
      started = true;
      responseId = chunk.responseId;
      const atStart = promptUsage(chunk.usageMetadata);
      out.push({
        type: 'response-start',
        ...(typeof chunk.responseId === 'string' ? { id: chunk.responseId } : {}),
        ...(typeof chunk.modelVersion === 'string' ? { model: chunk.modelVersion } : {}),
        ...(atStart !== undefined ? { usage: atStart } : {}),
      });
    }
    if (chunk.usageMetadata !== undefined) usage = chunk.usageMetadata;
    const candidate = readGeminiCandidate(chunk);
    if (candidate === undefined) blockReason ??= readGeminiBlockReason(chunk);
    for (const part of readGeminiParts(candidate)) out.push(...decodePart(part));
    if (candidate?.finishReason !== undefined) finishWord = candidate.finishReason;
    return out;
  }

  return {
    push(event: UpstreamEvent) {
      if (closed) return [];
      const parsed = parseJsonText(event.data);
      if (!parsed.ok || !isJsonObject(parsed.value)) {
        closed = true;
        return [...close(), { type: 'error', error: geminiStreamFailure('unreadable event data') }];
      }
      return handle(parsed.value);
    },
    end() {
      if (closed) return [];
      closed = true;
      if (finishWord === undefined && blockReason === undefined) {
        return [
          ...close(),
          { type: 'error', error: geminiStreamFailure('the stream ended before a finish reason') },
        ];
      }
      const finishReason =
        finishWord === undefined && blockReason !== undefined
          ? mapGeminiBlockReason(blockReason)
          : mapGeminiFinishReason(finishWord, calledTools);
      return [...close(), { type: 'finish', finishReason, usage: mapGeminiUsage(usage) }];
    },
  };
}
