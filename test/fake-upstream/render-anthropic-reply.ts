import { createHash } from 'node:crypto';
import type { FakeDialectRenderer, RenderContext } from './fake-dialect-renderer.ts';
import type { FakeFinishReason, FakeOutputBlock, FakeReasoning } from './fake-reply.ts';
import { renderAnthropicErrorBody } from './render-anthropic-error.ts';
import type { ResolvedReply, ResolvedUsage } from './resolve-fake-reply.ts';
import { splitIntoDeltas } from './split-into-deltas.ts';
import { jsonFrame } from './sse-frame.ts';
import type { SseFrame } from './sse-frame.ts';

const stopReasons: Record<FakeFinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

/** Real signatures are opaque base64; this one is stable so round trips can be compared. */
export function fakeThinkingSignature(text: string): string {
  const digest = createHash('sha256').update(text).digest('hex');
  return Buffer.from(`fake-signature:${digest}`).toString('base64');
}

/** Anthropic counts `input_tokens` without cache reads and writes (Messages API, "usage"). */
function inputUsage(usage: ResolvedUsage) {
  return {
    input_tokens: usage.input,
    cache_creation_input_tokens: usage.cacheWrite5m + usage.cacheWrite1h,
    cache_read_input_tokens: usage.cacheRead,
  };
}

function fullUsage(usage: ResolvedUsage, outputTokens: number) {
  return {
    ...inputUsage(usage),
    cache_creation: {
      ephemeral_5m_input_tokens: usage.cacheWrite5m,
      ephemeral_1h_input_tokens: usage.cacheWrite1h,
    },
    output_tokens: outputTokens,
    service_tier: 'standard',
  };
}

export function parseToolInput(argumentsText: string): unknown {
  if (argumentsText.trim() === '') return {};
  try {
    return JSON.parse(argumentsText);
  } catch {
    throw new Error(`fake-upstream: tool call arguments are not JSON: ${argumentsText}`);
  }
}

/** Blocks with their ids settled, so JSON and stream renderings agree. */
type AnthropicBlock =
  | { kind: 'text'; text: string }
  | { kind: 'thinking'; text: string; signature: string }
  | { kind: 'redacted_thinking'; data: string }
  | { kind: 'tool_use'; id: string; name: string; arguments: string };

function reasoningBlock(reasoning: FakeReasoning): AnthropicBlock {
  if (reasoning.redactedData !== undefined) {
    return { kind: 'redacted_thinking', data: reasoning.redactedData };
  }
  const text = reasoning.text ?? '';
  return { kind: 'thinking', text, signature: reasoning.signature ?? fakeThinkingSignature(text) };
}

function settleBlocks(output: FakeOutputBlock[], context: RenderContext): AnthropicBlock[] {
  return output.map((block): AnthropicBlock => {
    if ('text' in block) return { kind: 'text', text: block.text };
    if ('reasoning' in block) return reasoningBlock(block.reasoning);
    const call = block.toolCall;
    const id = call.id ?? context.ids.next('toolu_');
    return { kind: 'tool_use', id, name: call.name, arguments: call.arguments };
  });
}

function contentBlock(block: AnthropicBlock): unknown {
  switch (block.kind) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'thinking':
      return { type: 'thinking', thinking: block.text, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id,
        name: block.name,
        input: parseToolInput(block.arguments),
      };
  }
}

/** `content_block_start` carries the block emptied of what the deltas will fill in. */
function startBlock(block: AnthropicBlock): unknown {
  switch (block.kind) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
  }
}

function blockDeltas(block: AnthropicBlock): unknown[] {
  switch (block.kind) {
    case 'text':
      return splitIntoDeltas(block.text).map((text) => ({ type: 'text_delta', text }));
    case 'thinking':
      return [
        ...splitIntoDeltas(block.text).map((thinking) => ({ type: 'thinking_delta', thinking })),
        // The signature arrives whole, just before the block stops (extended thinking docs).
        { type: 'signature_delta', signature: block.signature },
      ];
    case 'redacted_thinking':
      return [];
    case 'tool_use':
      // The API opens every tool_use block with an empty partial_json before the fragments.
      return ['', ...splitIntoDeltas(block.arguments)].map((partial_json) => ({
        type: 'input_json_delta',
        partial_json,
      }));
  }
}

function renderJson(reply: ResolvedReply, context: RenderContext): unknown {
  return {
    id: reply.id ?? context.ids.next('msg_'),
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content: settleBlocks(reply.output, context).map(contentBlock),
    stop_reason: stopReasons[reply.finishReason],
    stop_sequence: null,
    usage: fullUsage(reply.usage, reply.usage.output),
  };
}

function renderStream(reply: ResolvedReply, context: RenderContext): SseFrame[] {
  const frames: SseFrame[] = [];
  const push = (data: { type: string } & Record<string, unknown>) =>
    frames.push(jsonFrame(data, data.type));
  push({
    type: 'message_start',
    message: {
      id: reply.id ?? context.ids.next('msg_'),
      type: 'message',
      role: 'assistant',
      model: reply.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      // The real prompt size up front; output so far is a token at most (streaming docs).
      usage: fullUsage(reply.usage, Math.min(1, reply.usage.output)),
    },
  });
  const blocks = settleBlocks(reply.output, context);
  if (blocks.length === 0) push({ type: 'ping' });
  blocks.forEach((block, index) => {
    push({ type: 'content_block_start', index, content_block: startBlock(block) });
    if (index === 0) push({ type: 'ping' });
    for (const delta of blockDeltas(block)) push({ type: 'content_block_delta', index, delta });
    push({ type: 'content_block_stop', index });
  });
  push({
    type: 'message_delta',
    delta: { stop_reason: stopReasons[reply.finishReason], stop_sequence: null },
    // Cumulative counts for the whole message, not an increment.
    usage: { ...inputUsage(reply.usage), output_tokens: reply.usage.output },
  });
  push({ type: 'message_stop' });
  const failure = reply.midStreamError;
  if (failure === undefined) return frames;
  const error = renderAnthropicErrorBody(529, {
    message: failure.message,
    type: failure.type ?? 'overloaded_error',
  });
  return [...frames.slice(0, failure.afterEvents), jsonFrame(error, 'error')];
}

export const anthropicRenderer: FakeDialectRenderer = {
  dialect: 'anthropic',
  requestIdHeader: 'request-id',
  renderJson,
  renderStream,
  renderErrorBody: renderAnthropicErrorBody,
};
