import type { FakeDialectRenderer, RenderContext } from './fake-dialect-renderer.ts';
import type { FakeOutputBlock } from './fake-reply.ts';
import { renderOpenAiErrorBody } from './render-openai-error.ts';
import { totalInputTokens } from './resolve-fake-reply.ts';
import type { ResolvedReply, ResolvedUsage } from './resolve-fake-reply.ts';
import { splitIntoDeltas } from './split-into-deltas.ts';
import { jsonFrame } from './sse-frame.ts';
import type { SseFrame } from './sse-frame.ts';

const systemFingerprint = 'fp_fake0000';

/** Chat counts cached reads inside `prompt_tokens` (OpenAI "Prompt caching" guide). */
function chatUsage(usage: ResolvedUsage) {
  const promptTokens = totalInputTokens(usage);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: usage.output,
    total_tokens: promptTokens + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

function settleToolCall(block: FakeOutputBlock, context: RenderContext): ChatToolCall | undefined {
  if (!('toolCall' in block)) return undefined;
  const call = block.toolCall;
  return { id: call.id ?? context.ids.next('call_'), name: call.name, arguments: call.arguments };
}

/** Chat has no redacted or signed reasoning: only readable text crosses, as `reasoning_content`. */
function reasoningOf(block: FakeOutputBlock): string {
  return 'reasoning' in block ? (block.reasoning.text ?? '') : '';
}

function renderJson(reply: ResolvedReply, context: RenderContext): unknown {
  const text = reply.output.map((block) => ('text' in block ? block.text : '')).join('');
  const reasoning = reply.output.map(reasoningOf).join('');
  const toolCalls = reply.output.flatMap((block) => settleToolCall(block, context) ?? []);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
    refusal: null,
    annotations: [],
  };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (toolCalls.length > 0) {
    message.tool_calls = toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: reply.id ?? context.ids.next('chatcmpl-'),
    object: 'chat.completion',
    created: context.createdAt,
    model: reply.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: chatUsage(reply.usage),
    service_tier: 'default',
    system_fingerprint: systemFingerprint,
  };
}

function renderStream(reply: ResolvedReply, context: RenderContext): SseFrame[] {
  const streamOptions = context.body.stream_options as { include_usage?: unknown } | undefined;
  const includeUsage = streamOptions?.include_usage === true;
  const envelope = {
    id: reply.id ?? context.ids.next('chatcmpl-'),
    object: 'chat.completion.chunk',
    created: context.createdAt,
    model: reply.model,
    service_tier: 'default',
    system_fingerprint: systemFingerprint,
  };
  const frames: SseFrame[] = [];
  const chunk = (delta: unknown, finishReason: string | null = null) =>
    frames.push(
      jsonFrame({
        ...envelope,
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
        // With include_usage every chunk but the last carries `usage: null` (API reference).
        ...(includeUsage ? { usage: null } : {}),
      }),
    );

  // OpenAI folds the role into the first tool call's delta when the answer opens with one.
  const opensWithToolCall = reply.output[0] !== undefined && 'toolCall' in reply.output[0];
  if (!opensWithToolCall) chunk({ role: 'assistant', content: '', refusal: null });
  let toolIndex = 0;
  for (const block of reply.output) {
    if ('text' in block) {
      for (const content of splitIntoDeltas(block.text)) chunk({ content });
    } else if ('reasoning' in block) {
      for (const piece of splitIntoDeltas(reasoningOf(block))) chunk({ reasoning_content: piece });
    } else {
      const call = settleToolCall(block, context);
      if (call === undefined) continue;
      const index = toolIndex;
      toolIndex += 1;
      const header = {
        index,
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: '' },
      };
      chunk(
        index === 0 && opensWithToolCall
          ? { role: 'assistant', content: null, tool_calls: [header], refusal: null }
          : { tool_calls: [header] },
      );
      for (const piece of splitIntoDeltas(call.arguments)) {
        chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
      }
    }
  }
  chunk({}, reply.finishReason);
  if (includeUsage)
    frames.push(jsonFrame({ ...envelope, choices: [], usage: chatUsage(reply.usage) }));
  frames.push({ data: '[DONE]' });
  const failure = reply.midStreamError;
  if (failure === undefined) return frames;
  // A failing chat stream sends a bare `{error}` chunk and no [DONE]; the SDK throws on it.
  const error = renderOpenAiErrorBody(500, { message: failure.message, type: failure.type });
  return [...frames.slice(0, failure.afterEvents), jsonFrame(error)];
}

export const chatRenderer: FakeDialectRenderer = {
  dialect: 'chat',
  requestIdHeader: 'x-request-id',
  renderJson,
  renderStream,
  renderErrorBody: renderOpenAiErrorBody,
};
