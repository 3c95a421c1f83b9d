import type {
  CodecResult,
  GenerationCall,
  ResponseFormat,
  ToolChoice,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { convertToOpenAIResponsesInput } from './convert-to-openai-responses-input.ts';
import { mapReasoningToOpenAIResponses } from './map-openai-responses-reasoning.ts';
import { createOpenAIToolNames, type OpenAIToolNames } from '../shared/openai-tool-names.ts';
import { toOpenAIUserId } from '../shared/openai-user-id.ts';

/** The API refuses a smaller `max_output_tokens`. */
const minimumOutputTokens = 16;

function toolChoice(choice: ToolChoice, names: OpenAIToolNames): unknown {
  return choice.type === 'tool'
    ? { type: 'function', name: names.toUpstream(choice.toolName) }
    : choice.type;
}

/** A json_schema format needs a name; `response` names an unnamed one. */
function textFormat(format: ResponseFormat): unknown {
  if (format.type === 'text') return { type: 'text' };
  if (format.schema === undefined) return { type: 'json_object' };
  return {
    type: 'json_schema',
    name: format.name ?? 'response',
    schema: format.schema,
    ...(format.strict !== undefined ? { strict: format.strict } : {}),
  };
}

/**
 * The canonical call as an OpenAI responses body. The gateway owns conversation state, so
 * `store` is always false and, with reasoning on, the encrypted reasoning is requested so the next
 * turn can replay it. Function tools are sent with an explicit `strict`: the dialect defaults to
 * strict schemas, which a non-strict client schema would fail.
 */
export function convertToOpenAIResponsesRequest(
  call: GenerationCall,
  options: Pick<ProviderRequestOptions, 'upstreamModel'>,
): CodecResult<Record<string, unknown>> {
  const issues: TranslationIssue[] = [];
  const names = createOpenAIToolNames(call);
  for (const name of names.collisions) {
    issues.push({
      path: 'tools',
      reason: `Two tool names both shorten to "${name}" for this upstream.`,
    });
  }
  const { instructions, input } = convertToOpenAIResponsesInput(call.messages, names, issues);
  const { reasoning, include } = mapReasoningToOpenAIResponses(call.reasoning);

  if (call.topK !== undefined) {
    issues.push({
      path: 'topK',
      reason: 'Top-k sampling has no equivalent on an OpenAI responses upstream.',
    });
  }
  if (call.stopSequences !== undefined && call.stopSequences.length > 0) {
    issues.push({
      path: 'stopSequences',
      reason: 'Stop sequences have no equivalent on an OpenAI responses upstream.',
    });
  }
  if (call.maxOutputTokens !== undefined && call.maxOutputTokens < minimumOutputTokens) {
    issues.push({
      path: 'maxOutputTokens',
      reason: `An OpenAI responses upstream needs at least ${minimumOutputTokens} output tokens.`,
    });
  }

  const body: Record<string, unknown> = {
    model: options.upstreamModel,
    ...(instructions !== undefined ? { instructions } : {}),
    input,
    store: false,
    stream: call.stream,
  };
  if (call.tools.length > 0) {
    // Cache hints on tools are equivalent: OpenAI caches prompt prefixes automatically.
    body.tools = call.tools.map((tool) => ({
      type: 'function',
      name: names.toUpstream(tool.name),
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.inputSchema,
      strict: tool.strict ?? false,
    }));
  }
  if (call.toolChoice !== undefined) body.tool_choice = toolChoice(call.toolChoice, names);
  if (call.parallelToolCalls !== undefined) body.parallel_tool_calls = call.parallelToolCalls;
  if (call.maxOutputTokens !== undefined) body.max_output_tokens = call.maxOutputTokens;
  if (call.temperature !== undefined) body.temperature = call.temperature;
  if (call.topP !== undefined) body.top_p = call.topP;
  if (reasoning !== undefined) body.reasoning = reasoning;
  if (include !== undefined) body.include = include;
  if (call.responseFormat !== undefined) body.text = { format: textFormat(call.responseFormat) };
  if (call.user !== undefined) body.user = toOpenAIUserId(call.user);
  return { value: body, issues };
}
