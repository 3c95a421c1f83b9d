import type { FakeReply, FakeReplyScript, RecordedRequest } from './fake-reply.ts';

/** One tool result a request carried back, in any of the three dialects. */
export interface RecordedToolResult {
  /** Anthropic `tool_use_id`, chat `tool_call_id`, Responses `call_id`. */
  toolCallId: string;
  /** The result's text: a string as sent, or its text parts joined. */
  text: string;
  /** Anthropic only: the `is_error` flag. */
  isError?: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text parts are `text` in messages and chat, `input_text` / `output_text` in Responses. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      isObject(part) && typeof part.text === 'string' && part.type !== 'image' ? part.text : '',
    )
    .join('');
}

function anthropicResults(body: Json): RecordedToolResult[] {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.flatMap((message: unknown) => {
    if (!isObject(message) || message.role !== 'user' || !Array.isArray(message.content)) return [];
    return message.content.flatMap((block: unknown) =>
      isObject(block) && block.type === 'tool_result'
        ? [
            {
              toolCallId: String(block.tool_use_id),
              text: textOf(block.content),
              ...(typeof block.is_error === 'boolean' ? { isError: block.is_error } : {}),
            },
          ]
        : [],
    );
  });
}

function chatResults(body: Json): RecordedToolResult[] {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  return messages.flatMap((message: unknown) =>
    isObject(message) && message.role === 'tool'
      ? [{ toolCallId: String(message.tool_call_id), text: textOf(message.content) }]
      : [],
  );
}

function responsesResults(body: Json): RecordedToolResult[] {
  const items = Array.isArray(body.input) ? body.input : [];
  return items.flatMap((item: unknown) =>
    isObject(item) && item.type === 'function_call_output'
      ? [{ toolCallId: String(item.call_id), text: textOf(item.output) }]
      : [],
  );
}

/** Gemini pairs a `functionResponse` with its call by name: the name stands for the id. */
function geminiResults(body: Json): RecordedToolResult[] {
  const contents = Array.isArray(body.contents) ? body.contents : [];
  return contents.flatMap((content: unknown) => {
    if (!isObject(content) || !Array.isArray(content.parts)) return [];
    return content.parts.flatMap((part: unknown) => {
      if (!isObject(part) || !isObject(part.functionResponse)) return [];
      const { name, response } = part.functionResponse;
      const result = isObject(response) ? response : {};
      const isError = result.error !== undefined;
      const text = isError ? result.error : result.output;
      return [
        {
          toolCallId: String(name),
          text: typeof text === 'string' ? text : JSON.stringify(text),
          ...(isError ? { isError } : {}),
        },
      ];
    });
  });
}

/** Every tool result in a recorded generation request, in the order the request lists them. */
export function readFakeToolResults(request: RecordedRequest): RecordedToolResult[] {
  const body = request.body;
  if (!isObject(body)) return [];
  switch (request.dialect) {
    case 'anthropic':
      return anthropicResults(body);
    case 'chat':
      return chatResults(body);
    case 'responses':
      return responsesResults(body);
    case 'gemini':
      return geminiResults(body);
    case undefined:
      return [];
  }
}

/**
 * A reply script for the turn after a tool call: the answer quotes the last tool result the
 * request carried, so a test can see the result travelled client → gateway → upstream and the
 * answer travelled back. Without a tool result the answer says so (and the test fails on it).
 */
export function echoLastToolResult(prefix = 'The tool said: '): FakeReplyScript {
  return (request: RecordedRequest): FakeReply => {
    const last = readFakeToolResults(request).at(-1);
    const text = last === undefined ? 'fake-upstream: no tool result received' : last.text;
    return { output: [{ text: `${prefix}${text}` }] };
  };
}
