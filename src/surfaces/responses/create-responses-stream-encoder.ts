import type { GenerationError } from '../../canonical/generation-error.ts';
import { assertNever, type StreamPart } from '../../canonical/stream-part.ts';
import type { Usage } from '../../canonical/usage.ts';
import type {
  ResponseObject,
  ResponsesOutputItem,
} from '../../wire/responses/responses-object-schema.ts';
import type { SurfaceEncodeContext, SurfaceEvent, SurfaceStreamEncoder } from '../surface-codec.ts';
import { encodeResponsesUsage } from './encode-responses-usage.ts';
import {
  mapResponsesTerminalStatus,
  outputFunctionCall,
  outputMessage,
  outputReasoning,
  outputText,
} from './encode-responses-output-item.ts';
import { mintResponsesItemId } from './responses-item-id.ts';
import { renderResponsesFailure } from './render-responses-failure.ts';
import { copyWith } from '../../shared/copy-with.ts';
import type { ReasoningFamily } from '../../canonical/generation-call.ts';

interface OpenMessage {
  id: string;
  outputIndex: number;
  texts: string[];
}

interface OpenReasoning {
  kind: 'reasoning';
  id: string;
  outputIndex: number;
  provider: ReasoningFamily | undefined;
  redactedData: string | undefined;
  text: string;
  summaryOpen: boolean;
}

interface OpenFunctionCall {
  kind: 'function_call';
  id: string;
  outputIndex: number;
  callId: string;
  toolName: string;
  arguments: string;
}

const failedEarly: GenerationError = {
  code: 'upstream_error',
  status: 502,
  type: 'api_error',
  message: 'The stream ended before the response was complete.',
};

/**
 * Renders canonical parts as the responses event sequence (docs/clients.md):
 * `response.created` → `response.in_progress` → per output item `output_item.added`, its content
 * events, `output_item.done` → `response.completed` (or `.incomplete` / `.failed`), every event
 * with a `sequence_number` from 0. Consecutive text blocks share one message item; any other block
 * closes it. A failure is `response.failed`, never an `error` event: the openai SDK throws on an
 * `error` event and Codex only reads `response.failed` (codex-rs sse/responses.rs), and the real API
 * uses `response.failed` once a response has been created.
 */
export function createResponsesStreamEncoder(context: SurfaceEncodeContext): SurfaceStreamEncoder {
  let sequence = context.firstSequenceNumber ?? 0;
  // Continued numbering means the stream was opened already (a relay's response.created).
  let started = sequence > 0;
  let finished = false;
  let nextOutputIndex = 0;
  const output: ResponsesOutputItem[] = [];
  let message: OpenMessage | undefined;
  /** Open text block id → its content index inside `message`. */
  const textIndexes = new Map<string, number>();
  const blocks = new Map<string, OpenReasoning | OpenFunctionCall>();

  const event = (type: string, fields: Record<string, unknown>): SurfaceEvent => ({
    event: type,
    data: { type, sequence_number: sequence++, ...fields },
  });

  const snapshot = (
    status: ResponseObject['status'],
    extra: Partial<ResponseObject> = {},
  ): ResponseObject => ({
    id: context.responseId,
    object: 'response',
    created_at: context.createdAt,
    status,
    error: null,
    incomplete_details: null,
    model: context.model,
    output: output.filter((item) => item !== undefined),
    usage: null,
    ...extra,
  });

  const start = (): SurfaceEvent[] => {
    if (started) return [];
    started = true;
    const response = snapshot('in_progress');
    return [event('response.created', { response }), event('response.in_progress', { response })];
  };

  const openItem = (item: ResponsesOutputItem): SurfaceEvent =>
    event('response.output_item.added', { output_index: nextOutputIndex++, item });

  const doneItem = (outputIndex: number, item: ResponsesOutputItem): SurfaceEvent => {
    output[outputIndex] = item;
    return event('response.output_item.done', { output_index: outputIndex, item });
  };

  const textDone = (open: OpenMessage, contentIndex: number): SurfaceEvent[] => {
    const text = open.texts[contentIndex] ?? '';
    const address = {
      item_id: open.id,
      output_index: open.outputIndex,
      content_index: contentIndex,
    };
    return [
      event('response.output_text.done', copyWith(address, { text, logprobs: [] })),
      event('response.content_part.done', copyWith(address, { part: outputText(text) })),
    ];
  };

  const closeMessage = (): SurfaceEvent[] => {
    if (message === undefined) return [];
    const open = message;
    const events: SurfaceEvent[] = [];
    for (const [id, contentIndex] of textIndexes) {
      events.push(...textDone(open, contentIndex));
      textIndexes.delete(id);
    }
    message = undefined;
    events.push(doneItem(open.outputIndex, outputMessage(open.id, open.texts, 'completed')));
    return events;
  };

  const textStart = (id: string): SurfaceEvent[] => {
    const events: SurfaceEvent[] = [];
    if (message === undefined) {
      const itemId = mintResponsesItemId('msg', context.responseId, nextOutputIndex);
      message = { id: itemId, outputIndex: nextOutputIndex, texts: [] };
      events.push(openItem(outputMessage(itemId, [], 'in_progress')));
    }
    const contentIndex = message.texts.push('') - 1;
    textIndexes.set(id, contentIndex);
    events.push(
      event('response.content_part.added', {
        item_id: message.id,
        output_index: message.outputIndex,
        content_index: contentIndex,
        part: outputText(''),
      }),
    );
    return events;
  };

  const reasoningEnd = (
    open: OpenReasoning,
    end: { signature?: string; encryptedContent?: string; summary?: string[] },
  ): SurfaceEvent[] => {
    const events: SurfaceEvent[] = [];
    if (open.summaryOpen) {
      const address = { item_id: open.id, output_index: open.outputIndex, summary_index: 0 };
      events.push(
        event('response.reasoning_summary_text.done', copyWith(address, { text: open.text })),
        event(
          'response.reasoning_summary_part.done',
          copyWith(address, { part: { type: 'summary_text', text: open.text } }),
        ),
      );
    }
    const item = outputReasoning(open.id, {
      provider: open.provider,
      text: open.text,
      redactedData: open.redactedData,
      ...end,
    });
    events.push(doneItem(open.outputIndex, item));
    return events;
  };

  const functionCallEnd = (open: OpenFunctionCall): SurfaceEvent[] => {
    const item = outputFunctionCall(
      open.id,
      open.callId,
      open.toolName,
      open.arguments,
      'completed',
    );
    return [
      event('response.function_call_arguments.done', {
        item_id: open.id,
        output_index: open.outputIndex,
        arguments: open.arguments,
      }),
      doneItem(open.outputIndex, item),
    ];
  };

  const closeAll = (): SurfaceEvent[] => {
    const events = closeMessage();
    for (const [id, open] of blocks) {
      blocks.delete(id);
      events.push(...(open.kind === 'reasoning' ? reasoningEnd(open, {}) : functionCallEnd(open)));
    }
    return events;
  };

  const finish = (finishReason: Parameters<typeof mapResponsesTerminalStatus>[0], usage: Usage) => {
    const events = closeAll();
    finished = true;
    const { status, incompleteDetails } = mapResponsesTerminalStatus(finishReason);
    const usageObject = encodeResponsesUsage(usage);
    if (status === 'failed') {
      const error = { code: 'server_error', message: 'The model stopped with an error.' };
      events.push(
        event('response.failed', { response: snapshot('failed', { error, usage: usageObject }) }),
      );
      return events;
    }
    const response = snapshot(status, {
      incomplete_details: incompleteDetails,
      usage: usageObject,
    });
    const type = status === 'completed' ? 'response.completed' : 'response.incomplete';
    events.push(event(type, { response }));
    return events;
  };

  const fail = (error: GenerationError): SurfaceEvent[] => {
    const events = closeAll();
    finished = true;
    const response = snapshot('failed', { error: renderResponsesFailure(error) });
    events.push(event('response.failed', { response }));
    return events;
  };

  const encodePart = (part: StreamPart): SurfaceEvent[] => {
    switch (part.type) {
      case 'response-start':
        return [];
      case 'text-start':
        return textStart(part.id);
      case 'text-delta': {
        const events = textIndexes.has(part.id) ? [] : textStart(part.id);
        const contentIndex = textIndexes.get(part.id) ?? 0;
        if (message === undefined || part.delta === '') return events;
        message.texts[contentIndex] += part.delta;
        events.push(
          event('response.output_text.delta', {
            item_id: message.id,
            output_index: message.outputIndex,
            content_index: contentIndex,
            delta: part.delta,
            logprobs: [],
          }),
        );
        return events;
      }
      case 'text-end': {
        const contentIndex = textIndexes.get(part.id);
        if (message === undefined || contentIndex === undefined) return [];
        textIndexes.delete(part.id);
        return textDone(message, contentIndex);
      }
      case 'reasoning-start': {
        const events = closeMessage();
        const id =
          part.provider === 'openai' && part.itemId !== undefined
            ? part.itemId
            : mintResponsesItemId('rs', context.responseId, nextOutputIndex);
        blocks.set(part.id, {
          kind: 'reasoning',
          id,
          outputIndex: nextOutputIndex,
          provider: part.provider,
          redactedData: part.redactedData,
          text: '',
          summaryOpen: false,
        });
        events.push(openItem({ id, type: 'reasoning', summary: [] }));
        return events;
      }
      case 'reasoning-delta': {
        const open = blocks.get(part.id);
        if (open?.kind !== 'reasoning' || part.delta === '') return [];
        const events: SurfaceEvent[] = [];
        if (!open.summaryOpen) {
          open.summaryOpen = true;
          events.push(
            event('response.reasoning_summary_part.added', {
              item_id: open.id,
              output_index: open.outputIndex,
              summary_index: 0,
              part: { type: 'summary_text', text: '' },
            }),
          );
        }
        open.text += part.delta;
        events.push(
          event('response.reasoning_summary_text.delta', {
            item_id: open.id,
            output_index: open.outputIndex,
            summary_index: 0,
            delta: part.delta,
          }),
        );
        return events;
      }
      case 'reasoning-end': {
        const open = blocks.get(part.id);
        if (open?.kind !== 'reasoning') return [];
        blocks.delete(part.id);
        return reasoningEnd(open, {
          signature: part.signature,
          encryptedContent: part.encryptedContent,
          summary: part.summary,
        });
      }
      case 'tool-input-start': {
        const events = closeMessage();
        const open: OpenFunctionCall = {
          kind: 'function_call',
          id: part.itemId ?? mintResponsesItemId('fc', context.responseId, nextOutputIndex),
          outputIndex: nextOutputIndex,
          // Provider decoders name tool input blocks by the tool call id (docs/architecture.md).
          callId: part.id,
          toolName: part.toolName,
          arguments: '',
        };
        blocks.set(part.id, open);
        events.push(
          openItem(outputFunctionCall(open.id, open.callId, open.toolName, '', 'in_progress')),
        );
        return events;
      }
      case 'tool-input-delta': {
        const open = blocks.get(part.id);
        if (open?.kind !== 'function_call' || part.delta === '') return [];
        open.arguments += part.delta;
        return [
          event('response.function_call_arguments.delta', {
            item_id: open.id,
            output_index: open.outputIndex,
            delta: part.delta,
          }),
        ];
      }
      case 'tool-input-end': {
        const open = blocks.get(part.id);
        if (open?.kind !== 'function_call') return [];
        blocks.delete(part.id);
        return functionCallEnd(open);
      }
      case 'finish':
        return finish(part.finishReason, part.usage);
      case 'error':
        return fail(part.error);
      default:
        return assertNever(part);
    }
  };

  return {
    encode(part) {
      if (finished) return [];
      return [...start(), ...encodePart(part)];
    },
    end() {
      if (finished) return [];
      return [...start(), ...fail(failedEarly)];
    },
  };
}
