import type {
  CodecResult,
  GenerationCall,
  ResponseFormat,
  ToolChoice,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { encodeOpenAIChatMessages } from './encode-openai-chat-messages.ts';
import { mapOpenAIChatReasoningEffort } from './map-openai-chat-reasoning-effort.ts';
import { createOpenAIToolNames, type OpenAIToolNames } from '../shared/openai-tool-names.ts';
import { toOpenAIUserId } from '../shared/openai-user-id.ts';

/**
 * The canonical call → a chat-completions body. Prompt-cache options and hints need nothing here:
 * OpenAI caches prompt prefixes automatically (equivalent, docs/translation/chat-openai-chat.md).
 */
export function encodeOpenAIChatRequest(
  call: GenerationCall,
  options: ProviderRequestOptions,
): CodecResult<Record<string, unknown>> {
  const issues: TranslationIssue[] = [];
  const names = createOpenAIToolNames(call);
  for (const name of names.collisions) {
    issues.push({ path: 'tools', reason: `Two tool names shorten to the same name \`${name}\`.` });
  }
  const body: Record<string, unknown> = {
    model: options.upstreamModel,
    messages: encodeOpenAIChatMessages(call.messages, names, issues),
  };
  if (call.tools.length > 0) {
    body['tools'] = call.tools.map((tool) => ({
      type: 'function',
      function: {
        name: names.toUpstream(tool.name),
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        parameters: tool.inputSchema,
        ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
      },
    }));
    // OpenAI rejects `parallel_tool_calls` without tools; without tools it changes nothing.
    if (call.parallelToolCalls !== undefined) body['parallel_tool_calls'] = call.parallelToolCalls;
  }
  if (call.toolChoice !== undefined) body['tool_choice'] = encodeToolChoice(call.toolChoice, names);
  if (call.maxOutputTokens !== undefined) body['max_completion_tokens'] = call.maxOutputTokens;
  if (call.temperature !== undefined) body['temperature'] = call.temperature;
  if (call.topP !== undefined) body['top_p'] = call.topP;
  if (call.topK !== undefined) {
    issues.push({ path: 'topK', reason: 'Chat-completions upstreams have no top-k sampling.' });
  }
  if (call.stopSequences !== undefined && call.stopSequences.length > 0) {
    body['stop'] = call.stopSequences;
  }
  if (call.reasoning !== undefined) {
    const effort = mapOpenAIChatReasoningEffort(call.reasoning);
    if (effort !== undefined) body['reasoning_effort'] = effort;
  }
  if (call.responseFormat !== undefined) {
    body['response_format'] = encodeResponseFormat(call.responseFormat);
  }
  if (call.user !== undefined) body['user'] = toOpenAIUserId(call.user);
  if (call.stream) {
    body['stream'] = true;
    // docs/architecture.md: always ask for stream usage, or the stream cannot be billed.
    body['stream_options'] = { include_usage: true };
  }
  return { value: body, issues };
}

function encodeToolChoice(choice: ToolChoice, names: OpenAIToolNames): unknown {
  if (choice.type === 'tool') {
    return { type: 'function', function: { name: names.toUpstream(choice.toolName) } };
  }
  return choice.type;
}

/** OpenAI requires a schema name; "response" stands in when the client gave none. */
function encodeResponseFormat(format: ResponseFormat): unknown {
  if (format.type === 'text') return { type: 'text' };
  if (format.schema === undefined) return { type: 'json_object' };
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name ?? 'response',
      schema: format.schema,
      ...(format.strict !== undefined ? { strict: format.strict } : {}),
    },
  };
}
