import type { GenerationCall } from '../../canonical/generation-call.ts';
import { ApiError } from '../../canonical/generation-error.ts';
import type { StreamPart } from '../../canonical/stream-part.ts';
import { emptyUsage, type Usage } from '../../canonical/usage.ts';
import type { ProviderStreamDecoder, UpstreamEvent } from '../provider-codec.ts';
import { mapOpenAIChatFinishReason } from './map-openai-chat-finish-reason.ts';
import { mapOpenAIChatUsage } from './map-openai-chat-usage.ts';
import { DeltaShape } from '../shared/delta-shape.ts';
import { createOpenAIToolNames } from '../shared/openai-tool-names.ts';
import { openAIChatDeltaSlot } from './openai-chat-delta-slot.ts';
import { isRecord, parseOpenAIChatJson } from './parse-openai-chat-json.ts';
import { readOpenAIChatReasoning } from './read-openai-chat-reasoning.ts';

interface ToolCallState {
  id?: string;
  name?: string;
  started: boolean;
  /** Argument fragments that arrived before the call's id and name. */
  pending: string;
}

const upstreamError = (message: string): StreamPart => ({
  type: 'error',
  error: new ApiError('upstream_error', message).toGenerationError(),
});

/**
 * `chat.completion.chunk` events → canonical parts. Text and reasoning blocks get ids `text-<n>` /
 * `reasoning-<n>` and never overlap; a tool input's id is its tool call id, and parallel calls
 * (distinct `index`) stay apart. The finish part waits for the usage chunk that follows the
 * finish reason (we always ask for it) and is sent at `[DONE]` or when the stream closes.
 */
export function createOpenAIChatStreamDecoder(call: GenerationCall): ProviderStreamDecoder {
  const names = createOpenAIToolNames(call);
  const toolCalls = new Map<number, ToolCallState>();
  let started = false;
  let done = false;
  let blockCount = 0;
  let openBlock: { kind: 'text' | 'reasoning'; id: string } | undefined;
  let finishRaw: string | undefined;
  let usage: Usage | undefined;
  let sawToolCall = false;
  let parts: StreamPart[] = [];
  // readChunk keeps nothing of a chunk but strings and numbers: the shape may hand it the same
  // object for every delta.
  const shape = new DeltaShape(openAIChatDeltaSlot);

  const closeBlock = () => {
    if (openBlock === undefined) return;
    parts.push({
      type: openBlock.kind === 'text' ? 'text-end' : 'reasoning-end',
      id: openBlock.id,
    });
    openBlock = undefined;
  };
  const appendBlock = (kind: 'text' | 'reasoning', delta: string) => {
    if (openBlock?.kind !== kind) {
      closeBlock();
      openBlock = { kind, id: `${kind}-${blockCount++}` };
      parts.push({ type: kind === 'text' ? 'text-start' : 'reasoning-start', id: openBlock.id });
    }
    parts.push({
      type: kind === 'text' ? 'text-delta' : 'reasoning-delta',
      id: openBlock.id,
      delta,
    });
  };
  const startToolCall = (state: ToolCallState, id: string, name: string) => {
    closeBlock();
    sawToolCall = true;
    state.started = true;
    state.id = id;
    parts.push({ type: 'tool-input-start', id, toolName: names.fromUpstream(name) });
    if (state.pending !== '') parts.push({ type: 'tool-input-delta', id, delta: state.pending });
    state.pending = '';
  };
  const readToolCallDelta = (delta: unknown, position: number) => {
    if (!isRecord(delta)) return;
    const index = typeof delta['index'] === 'number' ? delta['index'] : position;
    let state = toolCalls.get(index);
    if (state === undefined) {
      state = { started: false, pending: '' };
      toolCalls.set(index, state);
    }
    const fn = isRecord(delta['function']) ? delta['function'] : {};
    // Some servers repeat id and name on every delta; the first ones count.
    if (state.id === undefined && typeof delta['id'] === 'string' && delta['id'] !== '') {
      state.id = delta['id'];
    }
    if (state.name === undefined && typeof fn['name'] === 'string' && fn['name'] !== '') {
      state.name = fn['name'];
    }
    const fragment = typeof fn['arguments'] === 'string' ? fn['arguments'] : '';
    if (state.started && state.id !== undefined) {
      if (fragment !== '') parts.push({ type: 'tool-input-delta', id: state.id, delta: fragment });
      return;
    }
    state.pending += fragment;
    if (state.id !== undefined && state.name !== undefined) {
      startToolCall(state, state.id, state.name);
    }
  };
  /** Closes every open block once the upstream has given its finish reason. */
  const closeAll = () => {
    closeBlock();
    const ordered = [...toolCalls.entries()].sort(([a], [b]) => a - b);
    for (const [index, state] of ordered) {
      if (!state.started) {
        if (state.name === undefined) {
          parts.push(upstreamError(`The upstream sent tool call ${index} without a name.`));
          done = true;
          return;
        }
        // A server that never sent an id: the index names the call within this response.
        startToolCall(state, state.id ?? `call_${index}`, state.name);
      }
      if (state.id !== undefined) parts.push({ type: 'tool-input-end', id: state.id });
    }
    toolCalls.clear();
  };
  const finish = () => {
    if (finishRaw === undefined) {
      done = true;
      parts.push(upstreamError('The upstream stream ended without a finish reason.'));
      return;
    }
    closeAll();
    if (done) return;
    done = true;
    const finishReason = mapOpenAIChatFinishReason(finishRaw);
    // Some OpenAI-compatible servers say `stop` after tool calls; the turn still awaits results.
    if (finishReason.unified === 'stop' && sawToolCall) finishReason.unified = 'tool-calls';
    parts.push({ type: 'finish', finishReason, usage: usage ?? emptyUsage() });
  };

  const readChunk = (chunk: Record<string, unknown>) => {
    if (!started) {
      started = true;
      parts.push({
        type: 'response-start',
        ...(typeof chunk['id'] === 'string' && chunk['id'] !== '' ? { id: chunk['id'] } : {}),
        ...(typeof chunk['model'] === 'string' && chunk['model'] !== ''
          ? { model: chunk['model'] }
          : {}),
      });
    }
    usage = mapOpenAIChatUsage(chunk['usage']) ?? usage;
    const choices = Array.isArray(chunk['choices']) ? (chunk['choices'] as unknown[]) : [];
    // We never ask for more than one choice (`n` is not sent).
    const choice = choices.find((item) => isRecord(item) && (item['index'] ?? 0) === 0);
    if (!isRecord(choice)) return;
    const delta = isRecord(choice['delta']) ? choice['delta'] : {};
    const reasoning = readOpenAIChatReasoning(delta);
    if (reasoning !== '') appendBlock('reasoning', reasoning);
    if (typeof delta['content'] === 'string' && delta['content'] !== '') {
      appendBlock('text', delta['content']);
    }
    if (typeof delta['refusal'] === 'string' && delta['refusal'] !== '') {
      appendBlock('text', delta['refusal']);
    }
    if (Array.isArray(delta['tool_calls'])) {
      (delta['tool_calls'] as unknown[]).forEach(readToolCallDelta);
    }
    if (typeof choice['finish_reason'] === 'string' && finishRaw === undefined) {
      finishRaw = choice['finish_reason'];
      closeAll();
    }
  };

  const take = (): StreamPart[] => {
    const taken = parts;
    parts = [];
    return taken;
  };

  return {
    push(event: UpstreamEvent) {
      if (done) return [];
      const data = event.data.trim();
      if (data === '[DONE]') {
        finish();
        return take();
      }
      // A delta shaped like one parsed before is read without a parse (shared/delta-shape.ts).
      const shaped = shape.read(data);
      if (shaped !== undefined) {
        readChunk(shaped as Record<string, unknown>);
        return take();
      }
      const parsed = parseOpenAIChatJson(data);
      if (!parsed.ok || !isRecord(parsed.value)) {
        done = true;
        return [...take(), upstreamError('The upstream sent a chunk that is not a JSON object.')];
      }
      const error = parsed.value['error'];
      if (error !== undefined && error !== null) {
        done = true;
        const message =
          isRecord(error) && typeof error['message'] === 'string' ? error['message'] : 'unknown';
        return [...take(), upstreamError(`The upstream reported an error: ${message}`)];
      }
      readChunk(parsed.value);
      shape.learn(data, parsed.value);
      return take();
    },
    end() {
      if (done) return [];
      finish();
      return take();
    },
  };
}
