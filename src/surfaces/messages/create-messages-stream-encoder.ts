import { renderErrorBody } from '../../canonical/generation-error.ts';
import { assertNever, type StreamPart } from '../../canonical/stream-part.ts';
import { emptyUsage, type Usage } from '../../canonical/usage.ts';
import type { SurfaceEncodeContext, SurfaceEvent, SurfaceStreamEncoder } from '../surface-codec.ts';
import { omitsThinkingText } from './decode-messages-reasoning.ts';
import { mapMessagesStopReason } from './map-messages-stop-reason.ts';
import { encodeOpenAIReasoningSignature } from './messages-openai-reasoning-signature.ts';
import { encodeGoogleReasoningToken } from '../google-reasoning-token.ts';
import { renderMessagesUsage } from './render-messages-usage.ts';
import { jsonStringTemplate } from '../../shared/json-string-template.ts';

type IndexedEvent = (index: number) => SurfaceEvent;

interface Block {
  start: IndexedEvent;
  /** Events that arrived while another block was on the wire. */
  buffered: IndexedEvent[];
  ended: boolean;
  /** OpenAI reasoning only: what the signature token needs at the end. */
  openai?: { itemId?: string; text: string };
  /** Gemini reasoning only: the thought text its signature token holds. */
  google?: { text: string };
}

// Each event is one object literal of a fixed shape, its members in the order the Messages API
// sends them (type, index, then the block or delta): one event per streamed token, so no spread.
const startEvent =
  (contentBlock: Record<string, unknown>): IndexedEvent =>
  (index) => ({
    event: 'content_block_start',
    data: { type: 'content_block_start', index, content_block: contentBlock },
  });

const deltaEvent =
  (delta: Record<string, unknown>): IndexedEvent =>
  (index) => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta },
  });

/** The deltas that carry one string each, the bulk of a stream, and the member that holds it. */
const stringField = {
  text_delta: 'text',
  thinking_delta: 'thinking',
  input_json_delta: 'partial_json',
} as const;
type StringDelta = keyof typeof stringField;

const stopEvent: IndexedEvent = (index) => ({
  event: 'content_block_stop',
  data: { type: 'content_block_stop', index },
});

/**
 * Renders canonical stream parts as the message-style event sequence (docs/clients.md):
 * message_start → per block content_block_start / _delta / _stop → message_delta → message_stop.
 * Blocks go out one at a time with consecutive indexes, as the upstream dialect sends them; when
 * parts of parallel tool calls interleave, a later block is held back until the earlier one
 * stops, so each tool's argument fragments stay in its own block, unchanged. With
 * `thinking.display: "omitted"` a thinking block carries no thinking_delta, only its signature
 * (decisions/0011).
 */
export function createMessagesStreamEncoder(
  context: SurfaceEncodeContext,
  request?: Record<string, unknown>,
): SurfaceStreamEncoder {
  const omitThinking = omitsThinkingText(request);
  let started = false;
  let done = false;
  let nextIndex = 0;
  let active: { block: Block; index: number } | undefined;
  const waiting: Block[] = [];
  const blocks = new Map<string, Block>();
  let out: SurfaceEvent[] = [];
  // A block's deltas differ from the one before only in their string: each kind is written from a
  // template per block index (shared/json-string-template.ts), most of a stream's events.
  const templates = new Map<string, (text: string) => string>();
  const stringDelta =
    (type: StringDelta, text: string): IndexedEvent =>
    (index) => {
      const field = stringField[type];
      const event = deltaEvent({ type, [field]: text })(index);
      const key = `${index}:${type}`;
      let write = templates.get(key);
      if (write === undefined) {
        write = jsonStringTemplate((hole) => deltaEvent({ type, [field]: hole })(index).data);
        templates.set(key, write);
      }
      event.json = write(text);
      return event;
    };

  function messageStart(usage: Usage | undefined): void {
    if (started) return;
    started = true;
    out.push({
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: context.responseId,
          type: 'message',
          role: 'assistant',
          content: [],
          model: context.model,
          stop_reason: null,
          stop_sequence: null,
          // architecture.md: the prompt size when the upstream told it at the start, never a fake 0
          usage: renderMessagesUsage(usage ?? emptyUsage()),
        },
      },
    });
  }

  function putOnWire(block: Block): void {
    const index = nextIndex++;
    out.push(block.start(index));
    for (const event of block.buffered) out.push(event(index));
    block.buffered = [];
    if (block.ended) out.push(stopEvent(index));
    else active = { block, index };
  }

  function drain(): void {
    while (active === undefined && waiting.length > 0) putOnWire(waiting.shift() as Block);
  }

  function open(key: string, block: Block): void {
    messageStart(undefined);
    blocks.set(key, block);
    if (active === undefined && waiting.length === 0) putOnWire(block);
    else waiting.push(block);
  }

  // The provider-decoder contract guarantees a start before deltas and ends of the same id.
  function emit(key: string, event: IndexedEvent): void {
    const block = blocks.get(key);
    if (block === undefined) return;
    if (active?.block === block) out.push(event(active.index));
    else block.buffered.push(event);
  }

  function close(key: string): void {
    const block = blocks.get(key);
    if (block === undefined) return;
    blocks.delete(key);
    block.ended = true;
    if (active?.block !== block) return;
    out.push(stopEvent(active.index));
    active = undefined;
    drain();
  }

  function closeAll(): void {
    while (active !== undefined || waiting.length > 0) {
      if (active !== undefined) {
        out.push(stopEvent(active.index));
        active = undefined;
      }
      drain();
    }
    blocks.clear();
  }

  function handle(part: StreamPart): void {
    switch (part.type) {
      case 'response-start':
        messageStart(part.usage);
        return;
      case 'text-start':
        open(`text:${part.id}`, {
          start: startEvent({ type: 'text', text: '' }),
          buffered: [],
          ended: false,
        });
        return;
      case 'text-delta':
        emit(`text:${part.id}`, stringDelta('text_delta', part.delta));
        return;
      case 'text-end':
        close(`text:${part.id}`);
        return;
      case 'reasoning-start': {
        const contentBlock =
          part.redactedData !== undefined
            ? { type: 'redacted_thinking', data: part.redactedData }
            : { type: 'thinking', thinking: '', signature: '' };
        open(`reasoning:${part.id}`, {
          start: startEvent(contentBlock),
          buffered: [],
          ended: false,
          ...(part.provider === 'openai'
            ? {
                openai: { ...(part.itemId !== undefined ? { itemId: part.itemId } : {}), text: '' },
              }
            : {}),
          ...(part.provider === 'google' ? { google: { text: '' } } : {}),
        });
        return;
      }
      case 'reasoning-delta': {
        const key = `reasoning:${part.id}`;
        const block = blocks.get(key);
        if (block?.openai) block.openai.text += part.delta;
        if (block?.google) block.google.text += part.delta;
        if (!omitThinking) emit(key, stringDelta('thinking_delta', part.delta));
        return;
      }
      case 'reasoning-end': {
        const key = `reasoning:${part.id}`;
        const { openai, google } = blocks.get(key) ?? {};
        const googleSignature =
          google && part.signature !== undefined
            ? encodeGoogleReasoningToken({ text: google.text, signature: part.signature })
            : undefined;
        const signature = openai
          ? encodeOpenAIReasoningSignature({
              ...(openai.itemId !== undefined ? { itemId: openai.itemId } : {}),
              ...(part.encryptedContent !== undefined
                ? { encryptedContent: part.encryptedContent }
                : {}),
              summary: part.summary ?? (openai.text === '' ? [] : [openai.text]),
            })
          : (googleSignature ?? part.signature);
        // docs/clients.md: the signature arrives as one signature_delta just before the block
        // stops.
        if (signature !== undefined && signature !== '') {
          emit(key, deltaEvent({ type: 'signature_delta', signature }));
        }
        close(key);
        return;
      }
      case 'tool-input-start':
        open(`tool:${part.id}`, {
          start: startEvent({ type: 'tool_use', id: part.id, name: part.toolName, input: {} }),
          buffered: [],
          ended: false,
        });
        return;
      case 'tool-input-delta':
        emit(`tool:${part.id}`, stringDelta('input_json_delta', part.delta));
        return;
      case 'tool-input-end':
        close(`tool:${part.id}`);
        return;
      case 'finish':
        messageStart(undefined);
        closeAll();
        out.push({
          event: 'message_delta',
          data: {
            type: 'message_delta',
            delta: { stop_reason: mapMessagesStopReason(part.finishReason), stop_sequence: null },
            usage: renderMessagesUsage(part.usage),
          },
        });
        out.push({ event: 'message_stop', data: { type: 'message_stop' } });
        done = true;
        return;
      case 'error':
        out.push({ event: 'error', data: renderErrorBody(part.error, 'B') });
        done = true;
        return;
      default:
        assertNever(part);
    }
  }

  return {
    encode(part) {
      if (done) return [];
      out = [];
      handle(part);
      return out;
    },
    end() {
      return [];
    },
  };
}
