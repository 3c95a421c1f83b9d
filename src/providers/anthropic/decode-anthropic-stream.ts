import { closeOpenBlock, type OpenBlock } from '../shared/close-open-block.ts';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { isJsonObject, parseJsonText } from '../../wire/messages/messages-json-text.ts';
import type { ProviderStreamDecoder, UpstreamEvent } from '../provider-codec.ts';
import { DeltaShape } from '../shared/delta-shape.ts';
import { anthropicDeltaSlot } from './anthropic-delta-slot.ts';
import { anthropicStreamFailure, mapAnthropicStreamError } from './map-anthropic-error.ts';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason.ts';
import {
  mapAnthropicUsage,
  mergeAnthropicUsage,
  type AnthropicUsageCounts,
} from './map-anthropic-usage.ts';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Anthropic SSE (docs/clients.md) → canonical parts. Part ids are the block
 * index for text and reasoning and the `tool_use.id` for tool input (architecture.md). Argument
 * fragments and signatures pass through as received.
 */
export function createAnthropicStreamDecoder(_call: GenerationCall): ProviderStreamDecoder {
  const blocks = new Map<number, OpenBlock>();
  let counts: AnthropicUsageCounts = {};
  let finishReason: FinishReason = mapAnthropicStopReason(undefined);
  let closed = false;
  // handle keeps nothing of a delta event but strings: the shape may hand it the same object
  // for every delta.
  const shape = new DeltaShape(anthropicDeltaSlot);

  function fail(parts: StreamPart[], part: StreamPart): StreamPart[] {
    closed = true;
    return [...parts, part];
  }

  function startBlock(index: number, block: Record<string, unknown>): StreamPart[] {
    const id = String(index);
    switch (block.type) {
      case 'text': {
        blocks.set(index, { kind: 'text', id });
        const initial = text(block.text);
        return [
          { type: 'text-start', id },
          ...(initial !== '' ? [{ type: 'text-delta' as const, id, delta: initial }] : []),
        ];
      }
      case 'thinking': {
        const signature = text(block.signature);
        blocks.set(index, { kind: 'reasoning', id, ...(signature !== '' ? { signature } : {}) });
        const initial = text(block.thinking);
        return [
          { type: 'reasoning-start', id, provider: 'anthropic' },
          ...(initial !== '' ? [{ type: 'reasoning-delta' as const, id, delta: initial }] : []),
        ];
      }
      case 'redacted_thinking':
        blocks.set(index, { kind: 'reasoning', id });
        return [
          { type: 'reasoning-start', id, provider: 'anthropic', redactedData: text(block.data) },
        ];
      case 'tool_use': {
        const toolId = typeof block.id === 'string' ? block.id : id;
        blocks.set(index, { kind: 'tool', id: toolId });
        // The API starts with `input: {}` and streams the text; a non-empty start is sent whole.
        const input = isJsonObject(block.input) ? block.input : {};
        return [
          { type: 'tool-input-start', id: toolId, toolName: text(block.name) },
          ...(Object.keys(input).length > 0
            ? [{ type: 'tool-input-delta' as const, id: toolId, delta: JSON.stringify(input) }]
            : []),
        ];
      }
      default:
        // Server tool blocks cannot be rendered for another dialect, and are never requested.
        return fail([], {
          type: 'error',
          error: anthropicStreamFailure(`unsupported content block "${String(block.type)}"`),
        });
    }
  }

  function blockDelta(block: OpenBlock, delta: Record<string, unknown>): StreamPart[] {
    switch (delta.type) {
      case 'text_delta':
        return block.kind === 'text'
          ? [{ type: 'text-delta', id: block.id, delta: text(delta.text) }]
          : [];
      case 'thinking_delta':
        return block.kind === 'reasoning'
          ? [{ type: 'reasoning-delta', id: block.id, delta: text(delta.thinking) }]
          : [];
      case 'signature_delta':
        // Kept byte-identical; like the official SDK, a later signature replaces an earlier one.
        if (block.kind === 'reasoning') block.signature = text(delta.signature);
        return [];
      case 'input_json_delta': {
        const fragment = text(delta.partial_json);
        return block.kind === 'tool' && fragment !== ''
          ? [{ type: 'tool-input-delta', id: block.id, delta: fragment }]
          : [];
      }
      default:
        // citations_delta and future delta kinds carry nothing a canonical part can hold.
        return [];
    }
  }

  const stopBlock = (index: number): StreamPart[] => closeOpenBlock(blocks, index);

  function handle(data: Record<string, unknown>): StreamPart[] {
    switch (data.type) {
      case 'message_start': {
        const message = isJsonObject(data.message) ? data.message : {};
        counts = mergeAnthropicUsage(counts, message.usage);
        return [
          {
            type: 'response-start',
            ...(typeof message.id === 'string' ? { id: message.id } : {}),
            ...(typeof message.model === 'string' ? { model: message.model } : {}),
            ...(isJsonObject(message.usage) ? { usage: mapAnthropicUsage(counts) } : {}),
          },
        ];
      }
      case 'content_block_start':
        if (typeof data.index !== 'number' || !isJsonObject(data.content_block)) {
          return fail([], {
            type: 'error',
            error: anthropicStreamFailure('malformed content_block_start'),
          });
        }
        return startBlock(data.index, data.content_block);
      case 'content_block_delta': {
        const block = typeof data.index === 'number' ? blocks.get(data.index) : undefined;
        return block && isJsonObject(data.delta) ? blockDelta(block, data.delta) : [];
      }
      case 'content_block_stop':
        return typeof data.index === 'number' ? stopBlock(data.index) : [];
      case 'message_delta': {
        const delta = isJsonObject(data.delta) ? data.delta : {};
        if (delta.stop_reason !== undefined)
          finishReason = mapAnthropicStopReason(delta.stop_reason);
        counts = mergeAnthropicUsage(counts, data.usage);
        return [];
      }
      case 'message_stop':
        closed = true;
        return [{ type: 'finish', finishReason, usage: mapAnthropicUsage(counts) }];
      case 'error':
        return fail([], { type: 'error', error: mapAnthropicStreamError(data) });
      default:
        // `ping` and event kinds added later carry no content (upstream answers are read
        // leniently).
        return [];
    }
  }

  return {
    push(event: UpstreamEvent) {
      if (closed) return [];
      // A delta shaped like one parsed before is read without a parse (shared/delta-shape.ts).
      const shaped = shape.read(event.data);
      if (shaped !== undefined) return handle(shaped as Record<string, unknown>);
      const parsed = parseJsonText(event.data);
      if (!parsed.ok || !isJsonObject(parsed.value)) {
        return fail([], { type: 'error', error: anthropicStreamFailure('unreadable event data') });
      }
      const parts = handle(parsed.value);
      shape.learn(event.data, parsed.value);
      return parts;
    },
    end() {
      if (closed) return [];
      closed = true;
      return [
        { type: 'error', error: anthropicStreamFailure('the stream ended before message_stop') },
      ];
    },
  };
}
