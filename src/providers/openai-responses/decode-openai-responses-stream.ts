import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { emptyUsage } from '../../canonical/usage.ts';
import type { ProviderStreamDecoder } from '../provider-codec.ts';
import { decodeOpenAIResponsesUsage } from './decode-openai-responses-usage.ts';
import {
  mapOpenAIResponsesError,
  openAIResponsesStreamFailure,
} from './map-openai-responses-error.ts';
import { mapOpenAIResponsesFinishReason } from './map-openai-responses-finish-reason.ts';
import { createOpenAIToolNames } from '../shared/openai-tool-names.ts';
import {
  isJsonRecord,
  parseOpenAIResponsesEventData,
  readNumber,
  readRecords,
  readString,
  readTexts,
} from './read-openai-responses-json.ts';

interface OpenMessage {
  kind: 'message';
  key: string;
  /** Content index → text part id and whether any text was streamed into it. */
  parts: Map<number, { id: string; streamed: boolean }>;
  /** Content indexes that had a text part, open or already ended. */
  seen: Set<number>;
}
interface OpenReasoning {
  kind: 'reasoning';
  id: string;
  /** The summary part or content part that deltas currently go to. */
  segment: string | undefined;
  streamed: boolean;
}
interface OpenFunctionCall {
  kind: 'function_call';
  callId: string;
  arguments: string;
}
type OpenItem = OpenMessage | OpenReasoning | OpenFunctionCall | { kind: 'other' };

const terminalTypes = new Set(['response.completed', 'response.incomplete']);

/**
 * OpenAI responses SSE → canonical parts. Part ids: `<item id>:<content index>` for text parts,
 * the item id for reasoning, the `call_id` for tool input (architecture.md). Reasoning summaries of
 * one item stream as one reasoning block whose parts are joined by a blank line, so its text
 * equals the summaries joined with "\n\n"; the end carries the exact summaries and encrypted
 * content. Argument fragments pass through as received.
 */
export function createOpenAIResponsesStreamDecoder(call: GenerationCall): ProviderStreamDecoder {
  const names = createOpenAIToolNames(call);
  const items = new Map<number, OpenItem>();
  let started = false;
  let closed = false;
  let hasFunctionCall = false;

  const start = (response: unknown): StreamPart[] => {
    if (started) return [];
    started = true;
    const fields = isJsonRecord(response) ? response : {};
    const id = readString(fields.id);
    const model = readString(fields.model);
    return [
      {
        type: 'response-start',
        ...(id !== undefined ? { id } : {}),
        ...(model !== undefined ? { model } : {}),
      },
    ];
  };

  const openItem = (index: number, item: Record<string, unknown>): StreamPart[] => {
    const itemId = readString(item.id);
    switch (item.type) {
      case 'message':
        items.set(index, {
          kind: 'message',
          key: itemId ?? String(index),
          parts: new Map(),
          seen: new Set(),
        });
        return [];
      case 'reasoning': {
        const id = itemId ?? String(index);
        items.set(index, { kind: 'reasoning', id, segment: undefined, streamed: false });
        return [
          {
            type: 'reasoning-start',
            id,
            provider: 'openai',
            ...(itemId !== undefined ? { itemId } : {}),
          },
        ];
      }
      case 'function_call': {
        hasFunctionCall = true;
        const callId = readString(item.call_id) ?? itemId ?? String(index);
        const initial = readString(item.arguments) ?? '';
        items.set(index, { kind: 'function_call', callId, arguments: initial });
        const toolName = names.fromUpstream(readString(item.name) ?? '');
        return [
          {
            type: 'tool-input-start',
            id: callId,
            toolName,
            ...(itemId !== undefined ? { itemId } : {}),
          },
          ...(initial !== ''
            ? [{ type: 'tool-input-delta' as const, id: callId, delta: initial }]
            : []),
        ];
      }
      default:
        items.set(index, { kind: 'other' });
        return [];
    }
  };

  const textPart = (index: number, contentIndex: number): { parts: StreamPart[]; id?: string } => {
    const open = items.get(index);
    if (open?.kind !== 'message') return { parts: [] };
    const known = open.parts.get(contentIndex);
    if (known !== undefined) return { parts: [], id: known.id };
    const id = `${open.key}:${contentIndex}`;
    open.parts.set(contentIndex, { id, streamed: false });
    open.seen.add(contentIndex);
    return { parts: [{ type: 'text-start', id }], id };
  };

  const textDelta = (index: number, contentIndex: number, delta: string): StreamPart[] => {
    const { parts, id } = textPart(index, contentIndex);
    const part = (items.get(index) as OpenMessage | undefined)?.parts.get(contentIndex);
    if (id === undefined || part === undefined || delta === '') return parts;
    part.streamed = true;
    return [...parts, { type: 'text-delta', id, delta }];
  };

  const reasoningDelta = (index: number, segment: string, delta: string): StreamPart[] => {
    const open = items.get(index);
    if (open?.kind !== 'reasoning' || delta === '') return [];
    const parts: StreamPart[] = [];
    if (open.segment !== segment) {
      // A new summary part: separate it from the previous one by a blank line.
      if (open.segment !== undefined)
        parts.push({ type: 'reasoning-delta', id: open.id, delta: '\n\n' });
      open.segment = segment;
    }
    open.streamed = true;
    parts.push({ type: 'reasoning-delta', id: open.id, delta });
    return parts;
  };

  /** Ends an item; `item` is the finished item when the upstream sent it. */
  const closeItem = (index: number, item: Record<string, unknown>): StreamPart[] => {
    const open = items.get(index);
    items.delete(index);
    if (open === undefined) return [];
    switch (open.kind) {
      case 'message': {
        const parts: StreamPart[] = [...open.parts.values()].map((part) => ({
          type: 'text-end',
          id: part.id,
        }));
        // Text that arrived only in the finished item (no content part events) is not lost.
        readRecords(item.content).forEach((content, contentIndex) => {
          const text = readString(content.text) ?? readString(content.refusal);
          if (open.seen.has(contentIndex) || text === undefined) return;
          const id = `${open.key}:${contentIndex}`;
          parts.push(
            { type: 'text-start', id },
            ...(text !== '' ? [{ type: 'text-delta' as const, id, delta: text }] : []),
            { type: 'text-end', id },
          );
        });
        return parts;
      }
      case 'reasoning': {
        const summary = readTexts(item.summary, 'summary_text');
        const encryptedContent = readString(item.encrypted_content);
        const parts: StreamPart[] = [];
        if (!open.streamed && summary.length > 0) {
          parts.push({ type: 'reasoning-delta', id: open.id, delta: summary.join('\n\n') });
        }
        parts.push({
          type: 'reasoning-end',
          id: open.id,
          ...(encryptedContent !== undefined ? { encryptedContent } : {}),
          ...(Array.isArray(item.summary) ? { summary } : {}),
        });
        return parts;
      }
      case 'function_call': {
        const finalArguments = readString(item.arguments) ?? '';
        const parts: StreamPart[] = [];
        if (open.arguments === '' && finalArguments !== '') {
          parts.push({ type: 'tool-input-delta', id: open.callId, delta: finalArguments });
        }
        parts.push({ type: 'tool-input-end', id: open.callId });
        return parts;
      }
      case 'other':
        return [];
    }
  };

  const closeAll = (): StreamPart[] => [...items.keys()].flatMap((index) => closeItem(index, {}));

  const finish = (type: string, response: Record<string, unknown>): StreamPart[] => {
    const parts = closeAll();
    closed = true;
    const incomplete = isJsonRecord(response.incomplete_details) ? response.incomplete_details : {};
    parts.push({
      type: 'finish',
      finishReason: mapOpenAIResponsesFinishReason({
        status:
          readString(response.status) ??
          (type === 'response.completed' ? 'completed' : 'incomplete'),
        incompleteReason: readString(incomplete.reason),
        hasFunctionCall,
      }),
      usage: decodeOpenAIResponsesUsage(response.usage) ?? emptyUsage(),
    });
    return parts;
  };

  const fail = (error: Extract<StreamPart, { type: 'error' }>): StreamPart[] => {
    closed = true;
    return [error];
  };

  const decode = (type: string, data: Record<string, unknown>): StreamPart[] => {
    const index = readNumber(data.output_index) ?? -1;
    const contentIndex = readNumber(data.content_index) ?? 0;
    const delta = readString(data.delta) ?? '';
    const response = isJsonRecord(data.response) ? data.response : {};
    if (terminalTypes.has(type)) return finish(type, response);
    switch (type) {
      case 'response.failed':
        return fail({ type: 'error', error: mapOpenAIResponsesError(response.error) });
      case 'error':
        return fail({
          type: 'error',
          error: mapOpenAIResponsesError(isJsonRecord(data.error) ? data.error : data),
        });
      case 'response.output_item.added':
        return isJsonRecord(data.item) ? openItem(index, data.item) : [];
      case 'response.output_item.done': {
        const item = isJsonRecord(data.item) ? data.item : {};
        return [...(items.has(index) ? [] : openItem(index, item)), ...closeItem(index, item)];
      }
      case 'response.content_part.added': {
        const part = isJsonRecord(data.part) ? data.part : {};
        return textDelta(index, contentIndex, readString(part.text) ?? '');
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        return textDelta(index, contentIndex, delta);
      case 'response.content_part.done': {
        const open = items.get(index);
        const known = open?.kind === 'message' ? open.parts.get(contentIndex) : undefined;
        const part = isJsonRecord(data.part) ? data.part : {};
        const finalText = readString(part.text) ?? readString(part.refusal) ?? '';
        const parts = known?.streamed === true ? [] : textDelta(index, contentIndex, finalText);
        const id = open?.kind === 'message' ? open.parts.get(contentIndex)?.id : undefined;
        if (open?.kind === 'message') open.parts.delete(contentIndex);
        return id === undefined ? parts : [...parts, { type: 'text-end', id }];
      }
      case 'response.reasoning_summary_text.delta':
        return reasoningDelta(index, `summary:${readNumber(data.summary_index) ?? 0}`, delta);
      case 'response.reasoning_text.delta':
        return reasoningDelta(index, `content:${contentIndex}`, delta);
      case 'response.function_call_arguments.delta': {
        const open = items.get(index);
        if (open?.kind !== 'function_call' || delta === '') return [];
        open.arguments += delta;
        return [{ type: 'tool-input-delta', id: open.callId, delta }];
      }
      case 'response.function_call_arguments.done': {
        const open = items.get(index);
        const finalArguments = readString(data.arguments) ?? '';
        if (open?.kind !== 'function_call' || open.arguments !== '' || finalArguments === '')
          return [];
        open.arguments = finalArguments;
        return [{ type: 'tool-input-delta', id: open.callId, delta: finalArguments }];
      }
      default:
        // Lifecycle events (created, in_progress, *.done summaries) and annotations carry nothing new.
        return [];
    }
  };

  return {
    push(event) {
      if (closed || event.data === '[DONE]') return [];
      const data = parseOpenAIResponsesEventData(event.data);
      if (data === undefined) {
        return fail({
          type: 'error',
          error: openAIResponsesStreamFailure('an event could not be read'),
        });
      }
      const type = readString(data.type) ?? event.event ?? '';
      return [
        ...start(type === 'response.created' ? data.response : undefined),
        ...decode(type, data),
      ];
    },
    end() {
      if (closed) return [];
      closed = true;
      return [
        ...start(undefined),
        {
          type: 'error',
          error: openAIResponsesStreamFailure('the stream ended before response.completed'),
        },
      ];
    },
  };
}
