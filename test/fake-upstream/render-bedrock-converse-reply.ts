import type { RenderContext } from './fake-dialect-renderer.ts';
import type { FakeFinishReason, FakeOutputBlock } from './fake-reply.ts';
import { fakeThinkingSignature, parseToolInput } from './render-anthropic-reply.ts';
import type { ResolvedReply, ResolvedUsage } from './resolve-fake-reply.ts';
import { splitIntoDeltas } from './split-into-deltas.ts';

/** One ConverseStream event: its `:event-type` and JSON payload. */
export interface ConverseStreamEvent {
  eventType: string;
  payload: Record<string, unknown>;
}

const stopReasons: Record<FakeFinishReason, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'content_filtered',
};

/**
 * Converse TokenUsage: `inputTokens` without cache reads and writes, the writes split by TTL in
 * `cacheDetails` (1h before 5m) when there are any.
 */
function converseUsage(usage: ResolvedUsage): Record<string, unknown> {
  const writes = usage.cacheWrite5m + usage.cacheWrite1h;
  const details = [
    ...(usage.cacheWrite1h > 0 ? [{ ttl: '1h', inputTokens: usage.cacheWrite1h }] : []),
    ...(usage.cacheWrite5m > 0 ? [{ ttl: '5m', inputTokens: usage.cacheWrite5m }] : []),
  ];
  return {
    inputTokens: usage.input,
    outputTokens: usage.output,
    totalTokens: usage.input + usage.cacheRead + writes + usage.output,
    cacheReadInputTokens: usage.cacheRead,
    cacheWriteInputTokens: writes,
    ...(details.length > 0 ? { cacheDetails: details } : {}),
  };
}

type SettledBlock =
  | { kind: 'text'; text: string }
  | { kind: 'reasoning'; text: string; signature: string }
  | { kind: 'redacted'; data: string }
  | { kind: 'tool'; id: string; name: string; arguments: string };

function settle(output: FakeOutputBlock[], context: RenderContext): SettledBlock[] {
  return output.map((block): SettledBlock => {
    if ('text' in block) return { kind: 'text', text: block.text };
    if ('reasoning' in block) {
      const { reasoning } = block;
      if (reasoning.redactedData !== undefined)
        return { kind: 'redacted', data: reasoning.redactedData };
      const text = reasoning.text ?? '';
      return {
        kind: 'reasoning',
        text,
        signature: reasoning.signature ?? fakeThinkingSignature(text),
      };
    }
    const call = block.toolCall;
    return {
      kind: 'tool',
      id: call.id ?? context.ids.next('tooluse_'),
      name: call.name,
      arguments: call.arguments,
    };
  });
}

function contentBlock(block: SettledBlock): unknown {
  switch (block.kind) {
    case 'text':
      return { text: block.text };
    case 'reasoning':
      return {
        reasoningContent: { reasoningText: { text: block.text, signature: block.signature } },
      };
    case 'redacted':
      return { reasoningContent: { redactedContent: block.data } };
    case 'tool':
      return {
        toolUse: { toolUseId: block.id, name: block.name, input: parseToolInput(block.arguments) },
      };
  }
}

/** A Converse answer (POST /model/{modelId}/converse). */
export function renderConverseJson(reply: ResolvedReply, context: RenderContext): unknown {
  return {
    output: {
      message: { role: 'assistant', content: settle(reply.output, context).map(contentBlock) },
    },
    stopReason: stopReasons[reply.finishReason],
    usage: converseUsage(reply.usage),
    metrics: { latencyMs: 1 },
  };
}

function blockEvents(block: SettledBlock, index: number): ConverseStreamEvent[] {
  const delta = (value: Record<string, unknown>): ConverseStreamEvent => ({
    eventType: 'contentBlockDelta',
    payload: { contentBlockIndex: index, delta: value },
  });
  const events: ConverseStreamEvent[] = [];
  switch (block.kind) {
    case 'text':
      events.push(...splitIntoDeltas(block.text).map((text) => delta({ text })));
      break;
    case 'reasoning':
      events.push(
        ...splitIntoDeltas(block.text).map((text) => delta({ reasoningContent: { text } })),
        delta({ reasoningContent: { signature: block.signature } }),
      );
      break;
    case 'redacted':
      events.push(delta({ reasoningContent: { redactedContent: block.data } }));
      break;
    case 'tool':
      // Only tool blocks are announced; text and reasoning open with their first delta.
      events.push(
        {
          eventType: 'contentBlockStart',
          payload: {
            contentBlockIndex: index,
            start: { toolUse: { toolUseId: block.id, name: block.name } },
          },
        },
        ...splitIntoDeltas(block.arguments).map((input) => delta({ toolUse: { input } })),
      );
      break;
  }
  events.push({ eventType: 'contentBlockStop', payload: { contentBlockIndex: index } });
  return events;
}

/** A ConverseStream answer: the events in order, usage last in `metadata`. */
export function renderConverseStream(
  reply: ResolvedReply,
  context: RenderContext,
): ConverseStreamEvent[] {
  return [
    { eventType: 'messageStart', payload: { role: 'assistant' } },
    ...settle(reply.output, context).flatMap(blockEvents),
    { eventType: 'messageStop', payload: { stopReason: stopReasons[reply.finishReason] } },
    {
      eventType: 'metadata',
      payload: { usage: converseUsage(reply.usage), metrics: { latencyMs: 1 } },
    },
  ];
}
