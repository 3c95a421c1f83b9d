import type { FakeDialectRenderer, RenderContext } from './fake-dialect-renderer.ts';
import { renderOpenAiErrorBody } from './render-openai-error.ts';
import { finishedItem, itemEvents, settleResponsesItems } from './render-responses-items.ts';
import type { ResponsesEvent, ResponsesItem } from './render-responses-items.ts';
import { totalInputTokens } from './resolve-fake-reply.ts';
import type { ResolvedReply, ResolvedUsage } from './resolve-fake-reply.ts';
import { jsonFrame } from './sse-frame.ts';
import type { SseFrame } from './sse-frame.ts';

type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

/** Responses counts cached reads inside `input_tokens` (API reference, "ResponseUsage"). */
export function responsesUsage(usage: ResolvedUsage) {
  const inputTokens = totalInputTokens(usage);
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning },
    total_tokens: inputTokens + usage.output,
  };
}

/** A max_output_tokens stop leaves the response, and its last message, `incomplete`. */
function itemStatus(reply: ResolvedReply, items: ResponsesItem[], index: number) {
  const lastMessage = items.map((item) => item.kind).lastIndexOf('message');
  return reply.finishReason === 'length' && index === lastMessage ? 'incomplete' : 'completed';
}

interface ResponseState {
  status: ResponseStatus;
  output: unknown[];
  usage: ResolvedUsage | undefined;
  error?: { code: string; message: string };
}

/** The response object; request parameters are echoed back as the API does. */
function responseObject(
  id: string,
  reply: ResolvedReply,
  context: RenderContext,
  state: ResponseState,
) {
  const body = context.body;
  return {
    id,
    object: 'response',
    created_at: context.createdAt,
    status: state.status,
    background: false,
    error: state.error ?? null,
    incomplete_details:
      state.status === 'incomplete'
        ? {
            reason:
              reply.finishReason === 'content_filter' ? 'content_filter' : 'max_output_tokens',
          }
        : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    model: reply.model,
    output: state.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: body.reasoning ?? { effort: null, summary: null },
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: state.usage === undefined ? null : responsesUsage(state.usage),
    metadata: body.metadata ?? {},
  };
}

function finalState(reply: ResolvedReply, items: ResponsesItem[]): ResponseState {
  return {
    status:
      reply.finishReason === 'length' || reply.finishReason === 'content_filter'
        ? 'incomplete'
        : 'completed',
    output: items.map((item, index) => finishedItem(item, itemStatus(reply, items, index))),
    usage: reply.usage,
  };
}

function renderJson(reply: ResolvedReply, context: RenderContext): unknown {
  const items = settleResponsesItems(reply.output, context);
  const id = reply.id ?? context.ids.next('resp_');
  return responseObject(id, reply, context, finalState(reply, items));
}

function failureEvent(reply: ResolvedReply, id: string, context: RenderContext): ResponsesEvent {
  const failure = reply.midStreamError;
  const code = failure?.type ?? 'server_error';
  const message = failure?.message ?? 'The server had an error while processing your request.';
  if (failure?.responsesEvent === 'response.failed') {
    const state: ResponseState = { status: 'failed', output: [], usage: undefined };
    state.error = { code, message };
    return { type: 'response.failed', response: responseObject(id, reply, context, state) };
  }
  return { type: 'error', code, message, param: null };
}

function renderStream(reply: ResolvedReply, context: RenderContext): SseFrame[] {
  const id = reply.id ?? context.ids.next('resp_');
  const items = settleResponsesItems(reply.output, context);
  const opening: ResponseState = { status: 'in_progress', output: [], usage: undefined };
  const final = finalState(reply, items);
  let events: ResponsesEvent[] = [
    { type: 'response.created', response: responseObject(id, reply, context, opening) },
    { type: 'response.in_progress', response: responseObject(id, reply, context, opening) },
    ...items.flatMap((item, index) => itemEvents(item, index, itemStatus(reply, items, index))),
    {
      type: final.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
      response: responseObject(id, reply, context, final),
    },
  ];
  if (reply.midStreamError !== undefined) {
    const kept = events.slice(0, reply.midStreamError.afterEvents);
    events = [...kept, failureEvent(reply, id, context)];
  }
  // Every event carries its position; the stream has no [DONE] terminator.
  return events.map((event, sequence_number) =>
    jsonFrame({ ...event, sequence_number }, event.type),
  );
}

export const responsesRenderer: FakeDialectRenderer = {
  dialect: 'responses',
  requestIdHeader: 'x-request-id',
  renderJson,
  renderStream,
  renderErrorBody: renderOpenAiErrorBody,
};
