import type {
  CodecResult,
  FunctionTool,
  GenerationCall,
  ReasoningConfig,
  ToolChoice,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { addAnthropicCacheMarkers } from './add-anthropic-cache-markers.ts';
import {
  convertToAnthropicMessages,
  toAnthropicCacheControl,
} from './convert-to-anthropic-messages.ts';

function convertTool(tool: FunctionTool): Record<string, unknown> {
  // Tool arguments are always an object; a schema without `type` means the same thing.
  const inputSchema =
    'type' in tool.inputSchema ? tool.inputSchema : { type: 'object', ...tool.inputSchema };
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    input_schema: inputSchema,
    // `strict: false` is the default; only a request for strict arguments is sent.
    ...(tool.strict === true ? { strict: true } : {}),
    ...toAnthropicCacheControl(tool.cache),
  };
}

function convertToolChoice(
  choice: ToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
  hasTools: boolean,
): Record<string, unknown> | undefined {
  const disableParallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case undefined:
      return parallelToolCalls === false && hasTools
        ? { type: 'auto', ...disableParallel }
        : undefined;
    case 'auto':
      return hasTools ? { type: 'auto', ...disableParallel } : undefined;
    case 'none':
      // No tool can be called, so the parallel setting has nothing to act on.
      return hasTools ? { type: 'none' } : undefined;
    case 'required':
      return { type: 'any', ...disableParallel };
    case 'tool':
      return { type: 'tool', name: choice.toolName, ...disableParallel };
  }
}

const anthropicEfforts = new Set(['low', 'medium', 'high', 'xhigh', 'max']);

/**
 * Reasoning settings as `thinking` and `output_config.effort`. An effort without a level is
 * adaptive thinking; with a level, adaptive thinking plus that effort. The summary style is not
 * sent: the Messages API returns summarised thinking by default, the observable equivalent.
 */
function convertReasoning(
  reasoning: ReasoningConfig | undefined,
  issues: TranslationIssue[],
): { thinking?: Record<string, unknown>; effort?: string } {
  switch (reasoning?.type) {
    case undefined:
      return {};
    case 'disabled':
      return { thinking: { type: 'disabled' } };
    case 'budget':
      return { thinking: { type: 'enabled', budget_tokens: reasoning.budgetTokens } };
    case 'effort':
      if (reasoning.effort === undefined) return { thinking: { type: 'adaptive' } };
      if (!anthropicEfforts.has(reasoning.effort)) {
        issues.push({
          path: 'reasoning.effort',
          reason: `Anthropic has no "${reasoning.effort}" effort (low, medium, high, xhigh, max)`,
        });
        return { thinking: { type: 'adaptive' } };
      }
      return { thinking: { type: 'adaptive' }, effort: reasoning.effort };
  }
}

/** The canonical call as an Anthropic Messages API body (POST /v1/messages). */
export function convertToAnthropicRequest(
  call: GenerationCall,
  options: ProviderRequestOptions,
): CodecResult<Record<string, unknown>> {
  const issues: TranslationIssue[] = [];
  const { system, messages } = convertToAnthropicMessages(call.messages, issues);
  const body: Record<string, unknown> = {
    model: options.upstreamModel,
    max_tokens: call.maxOutputTokens ?? options.defaultMaxOutputTokens,
    messages,
  };
  if (system.length > 0) body.system = system;
  if (call.temperature !== undefined) body.temperature = call.temperature;
  if (call.topP !== undefined) body.top_p = call.topP;
  if (call.topK !== undefined) body.top_k = call.topK;
  if (call.stopSequences !== undefined && call.stopSequences.length > 0) {
    body.stop_sequences = call.stopSequences;
  }
  if (call.tools.length > 0) body.tools = call.tools.map(convertTool);
  const toolChoice = convertToolChoice(
    call.toolChoice,
    call.parallelToolCalls,
    call.tools.length > 0,
  );
  if (toolChoice !== undefined) body.tool_choice = toolChoice;
  const { thinking, effort } = convertReasoning(call.reasoning, issues);
  if (thinking !== undefined) body.thinking = thinking;
  const outputConfig: Record<string, unknown> = {};
  if (effort !== undefined) outputConfig.effort = effort;
  if (call.responseFormat?.type === 'json') {
    if (call.responseFormat.schema === undefined) {
      issues.push({
        path: 'responseFormat',
        reason: 'Anthropic structured output needs a JSON schema',
      });
    } else {
      // The schema name only labels the schema; Anthropic has no field for it.
      outputConfig.format = { type: 'json_schema', schema: call.responseFormat.schema };
    }
  }
  if (Object.keys(outputConfig).length > 0) body.output_config = outputConfig;
  if (call.user !== undefined) body.metadata = { user_id: call.user };
  body.stream = call.stream;
  return { value: addAnthropicCacheMarkers(body, options.promptCache), issues };
}
