import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { AssistantContentPart, GenerationCall } from '../../canonical/generation-call.ts';
import type { GenerationResult } from '../../canonical/generation-result.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import { mapGeminiBlockReason, mapGeminiFinishReason } from './map-gemini-finish-reason.ts';
import { mapGeminiUsage } from './map-gemini-usage.ts';
import { createGeminiToolCallIds } from './mint-gemini-tool-call-id.ts';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** The parts of the first candidate (the only one asked for), or none. */
export function readGeminiCandidate(
  body: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const candidate = Array.isArray(body.candidates) ? body.candidates[0] : undefined;
  return isJsonObject(candidate) ? candidate : undefined;
}

export function readGeminiParts(candidate: Record<string, unknown> | undefined): unknown[] {
  const content =
    candidate !== undefined && isJsonObject(candidate.content) ? candidate.content : {};
  return Array.isArray(content.parts) ? content.parts : [];
}

/** A prompt Gemini refused before answering: `promptFeedback.blockReason`, no candidate. */
export function readGeminiBlockReason(body: Record<string, unknown>): string | undefined {
  const feedback = isJsonObject(body.promptFeedback) ? body.promptFeedback : {};
  return typeof feedback.blockReason === 'string' ? feedback.blockReason : undefined;
}

/**
 * One Gemini part as canonical parts. A thought is reasoning with its signature; a signature on
 * any other part comes first as an empty signed reasoning part, which the encoder hands back to
 * the part after it (docs/decisions/0153).
 */
function decodePart(
  part: unknown,
  mintId: (upstreamId: unknown) => string,
): AssistantContentPart[] {
  if (!isJsonObject(part)) return [];
  const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
  if (part.thought === true) {
    return [
      {
        type: 'reasoning',
        text: text(part.text),
        provider: 'google',
        ...(signature !== undefined ? { signature } : {}),
      },
    ];
  }
  const carrier: AssistantContentPart[] =
    signature !== undefined ? [{ type: 'reasoning', text: '', signature, provider: 'google' }] : [];
  if (isJsonObject(part.functionCall)) {
    const call = part.functionCall;
    return [
      ...carrier,
      {
        type: 'tool-call',
        toolCallId: mintId(call.id),
        toolName: text(call.name),
        input: JSON.stringify(isJsonObject(call.args) ? call.args : {}),
      },
    ];
  }
  if (typeof part.text === 'string' && part.text !== '') {
    return [...carrier, { type: 'text', text: part.text }];
  }
  // Other parts (executable code, inline output data) answer only tools and modalities a
  // translated call never enables.
  return carrier;
}

/**
 * A non-streamed Gemini `GenerateContentResponse`, read leniently: unknown fields are ignored. A
 * prompt blocked for safety is an empty answer with a content-filter finish, not an error.
 */
export function decodeGeminiResult(body: unknown, _call: GenerationCall): GenerationResult {
  const response = isJsonObject(body) ? body : {};
  const candidate = readGeminiCandidate(response);
  const ids = createGeminiToolCallIds();
  const content = readGeminiParts(candidate).flatMap((part) =>
    decodePart(part, (upstreamId) => ids(response.responseId, upstreamId)),
  );
  const blockReason = candidate === undefined ? readGeminiBlockReason(response) : undefined;
  const finishReason: FinishReason =
    blockReason !== undefined
      ? mapGeminiBlockReason(blockReason)
      : mapGeminiFinishReason(
          candidate?.finishReason,
          content.some((part) => part.type === 'tool-call'),
        );
  return {
    content,
    finishReason,
    usage: mapGeminiUsage(response.usageMetadata),
    ...(typeof response.responseId === 'string' ? { id: response.responseId } : {}),
    ...(typeof response.modelVersion === 'string' ? { model: response.modelVersion } : {}),
  };
}
