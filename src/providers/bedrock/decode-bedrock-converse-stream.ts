import { closeOpenBlock, type OpenBlock } from '../shared/close-open-block.ts';
import type { FinishReason } from '../../canonical/finish-reason.ts';
import type { GenerationCall } from '../../canonical/generation-call.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { isJsonObject, parseJsonText } from '../../wire/messages/messages-json-text.ts';
import {
  anthropicStreamFailure,
  mapAnthropicStreamError,
} from '../anthropic/map-anthropic-error.ts';
import type { ProviderStreamDecoder, UpstreamEvent } from '../provider-codec.ts';
import { mapBedrockConverseStopReason } from './map-bedrock-converse-stop-reason.ts';
import { mapBedrockConverseUsage } from './map-bedrock-converse-usage.ts';

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * ConverseStream events (read off the event stream by read-bedrock-event-stream.ts, named by
 * their `:event-type`) → canonical parts. Only tool blocks are announced by `contentBlockStart`;
 * text and reasoning blocks open with their first delta. The stream's usage arrives last, in
 * `metadata` after `messageStop`, so that is where it finishes. Part ids are the block index for
 * text and reasoning and the `toolUseId` for tool input (docs/architecture.md).
 */
export function createBedrockConverseStreamDecoder(_call: GenerationCall): ProviderStreamDecoder {
  const blocks = new Map<number, OpenBlock>();
  let finishReason: FinishReason | undefined;
  let closed = false;

  function fail(reason: string): StreamPart[] {
    closed = true;
    return [{ type: 'error', error: anthropicStreamFailure(reason) }];
  }

  function startTool(index: number, start: unknown): StreamPart[] {
    const use = isJsonObject(start) && isJsonObject(start.toolUse) ? start.toolUse : undefined;
    if (use === undefined) return [];
    const id = typeof use.toolUseId === 'string' ? use.toolUseId : String(index);
    blocks.set(index, { kind: 'tool', id });
    return [{ type: 'tool-input-start', id, toolName: text(use.name) }];
  }

  /** The block a delta belongs to, opened by the delta when it is text or reasoning. */
  function blockFor(index: number, delta: Record<string, unknown>): [OpenBlock, StreamPart[]] {
    const open = blocks.get(index);
    if (open !== undefined) return [open, []];
    const id = String(index);
    if (isJsonObject(delta.reasoningContent)) {
      const block: OpenBlock = { kind: 'reasoning', id };
      blocks.set(index, block);
      const redactedData = delta.reasoningContent.redactedContent;
      if (typeof redactedData === 'string') {
        block.redactedData = redactedData;
        return [block, [{ type: 'reasoning-start', id, redactedData }]];
      }
      return [block, [{ type: 'reasoning-start', id }]];
    }
    const block: OpenBlock = { kind: 'text', id };
    blocks.set(index, block);
    return [block, [{ type: 'text-start', id }]];
  }

  function blockDelta(index: number, delta: Record<string, unknown>): StreamPart[] {
    const [block, opened] = blockFor(index, delta);
    if (typeof delta.text === 'string' && block.kind === 'text') {
      return [...opened, { type: 'text-delta', id: block.id, delta: delta.text }];
    }
    if (isJsonObject(delta.toolUse) && block.kind === 'tool') {
      const fragment = text(delta.toolUse.input);
      return fragment === ''
        ? opened
        : [...opened, { type: 'tool-input-delta', id: block.id, delta: fragment }];
    }
    if (isJsonObject(delta.reasoningContent) && block.kind === 'reasoning') {
      const reasoning = delta.reasoningContent;
      if (typeof reasoning.signature === 'string') block.signature = reasoning.signature;
      if (typeof reasoning.text === 'string' && reasoning.text !== '') {
        return [...opened, { type: 'reasoning-delta', id: block.id, delta: reasoning.text }];
      }
      return opened;
    }
    // A delta of another kind than its block, or a kind added later (citations): nothing to carry.
    return opened;
  }

  const stopBlock = (index: number): StreamPart[] => closeOpenBlock(blocks, index);

  function handle(name: string | undefined, data: Record<string, unknown>): StreamPart[] {
    const index = typeof data.contentBlockIndex === 'number' ? data.contentBlockIndex : undefined;
    switch (name) {
      case 'messageStart':
        return [{ type: 'response-start' }];
      case 'contentBlockStart':
        return index === undefined
          ? fail('malformed contentBlockStart')
          : startTool(index, data.start);
      case 'contentBlockDelta':
        return index !== undefined && isJsonObject(data.delta) ? blockDelta(index, data.delta) : [];
      case 'contentBlockStop':
        return index === undefined ? [] : stopBlock(index);
      case 'messageStop':
        finishReason = mapBedrockConverseStopReason(data.stopReason);
        return [];
      case 'metadata':
        if (finishReason === undefined) return [];
        closed = true;
        return [{ type: 'finish', finishReason, usage: mapBedrockConverseUsage(data.usage) }];
      case 'error':
        closed = true;
        return [{ type: 'error', error: mapAnthropicStreamError(data) }];
      default:
        // Event kinds added later carry no content (upstream answers are read leniently).
        return [];
    }
  }

  return {
    push(event: UpstreamEvent) {
      if (closed) return [];
      const parsed = parseJsonText(event.data);
      if (!parsed.ok || !isJsonObject(parsed.value)) return fail('unreadable event data');
      return handle(event.event, parsed.value);
    },
    end() {
      if (closed) return [];
      return fail(
        finishReason === undefined
          ? 'the stream ended before messageStop'
          : 'the stream ended before its usage metadata',
      );
    },
  };
}
