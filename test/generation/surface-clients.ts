import { parseServerSentEvents } from '../support/parse-sse.ts';

/** What a client of any dialect saw, reduced to comparable facts. */
export interface ClientView {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** Prompt tokens as the dialect reports them (its own semantics). */
  reportedInput: number | undefined;
  /** Message-style streams only: the prompt size message_start announced. */
  startInput?: number;
  reportedOutput: number | undefined;
  finished: boolean;
  errorMessage: string | undefined;
}

export type SurfaceName = 'messages' | 'chat' | 'responses';

export const surfacePaths: Record<SurfaceName, string> = {
  messages: '/v1/messages',
  chat: '/v1/chat/completions',
  responses: '/v1/responses',
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface Conversation {
  model: string;
  stream: boolean;
  user: string;
  tools?: Array<{ name: string; description: string; schema: Json }>;
  image?: { mediaType: string; data: string };
  /** A previous assistant tool call and its result, replayed before `user`. */
  toolRoundTrip?: { id: string; name: string; arguments: string; result: string };
}

/** Builds the request body each dialect's clients send for the same conversation. */
export function buildRequest(surface: SurfaceName, conversation: Conversation): Json {
  const { model, stream, user, tools, image, toolRoundTrip } = conversation;
  if (surface === 'messages') {
    const messages: Json[] = [];
    if (toolRoundTrip) {
      messages.push({ role: 'user', content: 'start' });
      messages.push({
        role: 'assistant',
        content: [
          {
            type: 'tool_use',
            id: toolRoundTrip.id,
            name: toolRoundTrip.name,
            input: JSON.parse(toolRoundTrip.arguments),
          },
        ],
      });
      messages.push({
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: toolRoundTrip.id, content: toolRoundTrip.result },
          { type: 'text', text: user },
        ],
      });
    } else {
      const content: Json[] = [{ type: 'text', text: user }];
      if (image)
        content.push({
          type: 'image',
          source: { type: 'base64', media_type: image.mediaType, data: image.data },
        });
      messages.push({ role: 'user', content });
    }
    return {
      model,
      max_tokens: 256,
      stream,
      messages,
      ...(tools
        ? {
            tools: tools.map((tool) => ({
              name: tool.name,
              description: tool.description,
              input_schema: tool.schema,
            })),
          }
        : {}),
    };
  }
  if (surface === 'chat') {
    const messages: Json[] = [];
    if (toolRoundTrip) {
      messages.push({ role: 'user', content: 'start' });
      messages.push({
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: toolRoundTrip.id,
            type: 'function',
            function: { name: toolRoundTrip.name, arguments: toolRoundTrip.arguments },
          },
        ],
      });
      messages.push({
        role: 'tool',
        tool_call_id: toolRoundTrip.id,
        content: toolRoundTrip.result,
      });
      messages.push({ role: 'user', content: user });
    } else if (image) {
      messages.push({
        role: 'user',
        content: [
          { type: 'text', text: user },
          { type: 'image_url', image_url: { url: `data:${image.mediaType};base64,${image.data}` } },
        ],
      });
    } else {
      messages.push({ role: 'user', content: user });
    }
    return {
      model,
      stream,
      max_completion_tokens: 256,
      ...(stream ? { stream_options: { include_usage: true } } : {}),
      messages,
      ...(tools
        ? {
            tools: tools.map((tool) => ({
              type: 'function',
              function: { name: tool.name, description: tool.description, parameters: tool.schema },
            })),
          }
        : {}),
    };
  }
  const input: Json[] = [];
  if (toolRoundTrip) {
    input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'start' }] });
    input.push({
      type: 'function_call',
      id: 'fc_replayed',
      call_id: toolRoundTrip.id,
      name: toolRoundTrip.name,
      arguments: toolRoundTrip.arguments,
    });
    input.push({
      type: 'function_call_output',
      call_id: toolRoundTrip.id,
      output: toolRoundTrip.result,
    });
    input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: user }] });
  } else {
    const content: Json[] = [{ type: 'input_text', text: user }];
    if (image)
      content.push({
        type: 'input_image',
        image_url: `data:${image.mediaType};base64,${image.data}`,
      });
    input.push({ type: 'message', role: 'user', content });
  }
  return {
    model,
    stream,
    store: false,
    max_output_tokens: 256,
    input,
    ...(tools
      ? {
          tools: tools.map((tool) => ({
            type: 'function',
            name: tool.name,
            description: tool.description,
            parameters: tool.schema,
          })),
        }
      : {}),
  };
}

function emptyView(): ClientView {
  return {
    text: '',
    toolCalls: [],
    reportedInput: undefined,
    reportedOutput: undefined,
    finished: false,
    errorMessage: undefined,
  };
}

/** Reads a response the way that dialect's SDKs do. */
export function readResponse(surface: SurfaceName, stream: boolean, body: string): ClientView {
  const view = emptyView();
  if (!stream) {
    const json = JSON.parse(body) as Json;
    if (surface === 'messages') {
      for (const block of json.content) {
        if (block.type === 'text') view.text += block.text;
        if (block.type === 'tool_use')
          view.toolCalls.push({
            id: block.id,
            name: block.name,
            arguments: JSON.stringify(block.input),
          });
      }
      view.reportedInput = json.usage?.input_tokens;
      view.reportedOutput = json.usage?.output_tokens;
      view.finished = typeof json.stop_reason === 'string';
    } else if (surface === 'chat') {
      const message = json.choices[0].message;
      view.text = message.content ?? '';
      for (const call of message.tool_calls ?? [])
        view.toolCalls.push({
          id: call.id,
          name: call.function.name,
          arguments: call.function.arguments,
        });
      view.reportedInput = json.usage?.prompt_tokens;
      view.reportedOutput = json.usage?.completion_tokens;
      view.finished = typeof json.choices[0].finish_reason === 'string';
    } else {
      readResponsesOutput(json, view);
    }
    return view;
  }
  const events = parseServerSentEvents(body);
  if (surface === 'messages') {
    const blocks = new Map<number, Json>();
    for (const { event, data } of events) {
      const json = JSON.parse(data) as Json;
      if (event === 'message_start') {
        view.reportedInput = json.message.usage.input_tokens;
        view.startInput = json.message.usage.input_tokens;
      }
      if (event === 'content_block_start')
        blocks.set(json.index, { ...json.content_block, partial: '' });
      if (event === 'content_block_delta') {
        const block = blocks.get(json.index) as Json;
        if (json.delta.type === 'text_delta') view.text += json.delta.text;
        if (json.delta.type === 'input_json_delta') block.partial += json.delta.partial_json;
      }
      if (event === 'content_block_stop') {
        const block = blocks.get(json.index) as Json;
        if (block.type === 'tool_use')
          view.toolCalls.push({ id: block.id, name: block.name, arguments: block.partial });
      }
      if (event === 'message_delta') {
        view.reportedOutput = json.usage.output_tokens;
        // The SDKs take a cumulative input count from message_delta when it carries one.
        if (typeof json.usage.input_tokens === 'number')
          view.reportedInput = json.usage.input_tokens;
      }
      if (event === 'message_stop') view.finished = true;
      if (event === 'error') view.errorMessage = json.error.message;
    }
  } else if (surface === 'chat') {
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    for (const { data } of events) {
      if (data === '[DONE]') {
        view.finished = view.finished && true;
        continue;
      }
      const json = JSON.parse(data) as Json;
      if (json.error) {
        view.errorMessage = json.error.message;
        continue;
      }
      if (json.usage) {
        view.reportedInput = json.usage.prompt_tokens;
        view.reportedOutput = json.usage.completion_tokens;
      }
      for (const choice of json.choices ?? []) {
        if (typeof choice.delta?.content === 'string') view.text += choice.delta.content;
        for (const call of choice.delta?.tool_calls ?? []) {
          const existing = calls.get(call.index);
          if (existing === undefined)
            calls.set(call.index, {
              id: call.id,
              name: call.function.name,
              arguments: call.function.arguments ?? '',
            });
          else existing.arguments += call.function?.arguments ?? '';
        }
        if (choice.finish_reason) view.finished = true;
      }
    }
    view.toolCalls = [...calls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, call]) => call);
  } else {
    let last = -1;
    for (const { event, data } of events) {
      const json = JSON.parse(data) as Json;
      if (typeof json.sequence_number === 'number') {
        if (json.sequence_number <= last) throw new Error('sequence_number not increasing');
        last = json.sequence_number;
      }
      if (event === 'response.output_text.delta') view.text += json.delta;
      if (event === 'response.completed' || event === 'response.incomplete') {
        const text = view.text;
        readResponsesOutput(json.response, view);
        view.text = text;
      }
      if (event === 'response.failed')
        view.errorMessage = json.response?.error?.message ?? 'failed';
      if (event === 'error') view.errorMessage = json.message ?? json.error?.message ?? 'error';
    }
  }
  return view;
}

function readResponsesOutput(json: Json, view: ClientView): void {
  view.text = '';
  view.toolCalls = [];
  for (const item of json.output ?? []) {
    if (item.type === 'message')
      for (const part of item.content) if (part.type === 'output_text') view.text += part.text;
    if (item.type === 'function_call')
      view.toolCalls.push({ id: item.call_id, name: item.name, arguments: item.arguments });
  }
  view.reportedInput = json.usage?.input_tokens;
  view.reportedOutput = json.usage?.output_tokens;
  view.finished = json.status === 'completed' || json.status === 'incomplete';
}
