import type { RecordedRequest } from '../fake-upstream/fake-upstream-server.ts';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function listOf(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** A function tool as an upstream dialect carries it: its name and its JSON Schema. */
export interface UpstreamTool {
  name: string;
  schema: unknown;
}

/** The function tools a recorded request offered (Anthropic, chat or responses shape). */
export function readUpstreamTools(request: RecordedRequest): UpstreamTool[] {
  const body = isObject(request.body) ? request.body : {};
  return listOf(body.tools).flatMap((tool): UpstreamTool[] => {
    if (request.dialect === 'anthropic')
      return [{ name: String(tool.name), schema: tool.input_schema }];
    if (request.dialect === 'chat') {
      const fn = isObject(tool.function) ? tool.function : {};
      return [{ name: String(fn.name), schema: fn.parameters }];
    }
    if (tool.type === 'function') return [{ name: String(tool.name), schema: tool.parameters }];
    if (tool.type === 'namespace') {
      return listOf(tool.tools).map((inner) => ({
        name: `${String(tool.name)}.${String(inner.name)}`,
        schema: inner.parameters,
      }));
    }
    return [{ name: `(${String(tool.type)})`, schema: undefined }];
  });
}

/** A tool call replayed in a request's history. */
export interface UpstreamToolCall {
  /** Anthropic `tool_use.id`, chat `tool_calls[].id`, responses `call_id`. */
  id: string;
  /** Responses only: the `function_call` item id (`fc_…`). */
  itemId?: string;
  name: string;
  /** The arguments as JSON text (Anthropic's `input` object serialised). */
  arguments: string;
}

export function readUpstreamToolCalls(request: RecordedRequest): UpstreamToolCall[] {
  const body = isObject(request.body) ? request.body : {};
  if (request.dialect === 'responses') {
    return listOf(body.input)
      .filter((item) => item.type === 'function_call')
      .map((item) => ({
        id: String(item.call_id),
        ...(typeof item.id === 'string' ? { itemId: item.id } : {}),
        name: String(item.name),
        arguments: String(item.arguments),
      }));
  }
  return listOf(body.messages).flatMap((message): UpstreamToolCall[] => {
    if (message.role !== 'assistant') return [];
    if (request.dialect === 'chat') {
      return listOf(message.tool_calls).map((call) => {
        const fn = isObject(call.function) ? call.function : {};
        return { id: String(call.id), name: String(fn.name), arguments: String(fn.arguments) };
      });
    }
    return listOf(message.content)
      .filter((block) => block.type === 'tool_use')
      .map((block) => ({
        id: String(block.id),
        name: String(block.name),
        arguments: JSON.stringify(block.input),
      }));
  });
}
