import type {
  CodecResult,
  FunctionTool,
  GenerationCall,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import {
  converseCachePoint,
  convertToBedrockConverseMessages,
  type ConverseBlock,
  type ConverseMessage,
} from './convert-to-bedrock-converse-messages.ts';

function convertTool(tool: FunctionTool): ConverseBlock[] {
  // Tool arguments are always an object; a schema without `type` means the same thing.
  const schema =
    'type' in tool.inputSchema ? tool.inputSchema : { type: 'object', ...tool.inputSchema };
  return [
    {
      toolSpec: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        inputSchema: { json: schema },
        ...(tool.strict === true ? { strict: true } : {}),
      },
    },
    ...converseCachePoint(tool.cache),
  ];
}

const carriesToolBlocks = (messages: ConverseMessage[]): boolean =>
  messages.some((message) =>
    message.content.some((block) => 'toolUse' in block || 'toolResult' in block),
  );

/**
 * `toolConfig`: the tools and the choice (`auto`, `any`, `tool`). Converse has no `none`: a call
 * that may use no tool is sent without its tools, which is the same unless the conversation holds
 * tool blocks, which Converse reads only with a `toolConfig`.
 */
function convertToolConfig(
  call: GenerationCall,
  messages: ConverseMessage[],
  issues: TranslationIssue[],
): Record<string, unknown> | undefined {
  if (call.tools.length === 0) return undefined;
  if (call.parallelToolCalls === false) {
    issues.push({
      path: 'parallelToolCalls',
      reason: 'Converse cannot forbid parallel tool calls',
    });
  }
  const tools = call.tools.flatMap(convertTool);
  const choice = call.toolChoice;
  switch (choice?.type) {
    case undefined:
    case 'auto':
      return { tools };
    case 'none':
      if (carriesToolBlocks(messages)) {
        issues.push({ path: 'toolChoice', reason: 'Converse has no tool choice "none"' });
      }
      return undefined;
    case 'required':
      return { tools, toolChoice: { any: {} } };
    case 'tool':
      return { tools, toolChoice: { tool: { name: choice.toolName } } };
  }
}

// Converse request metadata values (ConverseRequest `requestMetadata`, for invocation logs).
const metadataValue = /^[a-zA-Z0-9\s:_@$#=/+,.-]{1,256}$/;

/**
 * The canonical call as a Converse body (POST /model/{modelId}/converse and /converse-stream).
 * Only the settings every Converse model reads are sent; model-specific ones (`topK`, reasoning
 * budgets and efforts, structured output) differ per model family and are reported as issues.
 */
export function convertToBedrockConverseRequest(
  call: GenerationCall,
  options: ProviderRequestOptions,
): CodecResult<Record<string, unknown>> {
  const issues: TranslationIssue[] = [];
  const { system, messages } = convertToBedrockConverseMessages(call.messages, issues);
  const body: Record<string, unknown> = { messages };
  if (system.length > 0) body.system = system;
  const inferenceConfig: Record<string, unknown> = {
    maxTokens: call.maxOutputTokens ?? options.defaultMaxOutputTokens,
  };
  if (call.temperature !== undefined) inferenceConfig.temperature = call.temperature;
  if (call.topP !== undefined) inferenceConfig.topP = call.topP;
  if (call.stopSequences !== undefined && call.stopSequences.length > 0) {
    inferenceConfig.stopSequences = call.stopSequences;
  }
  body.inferenceConfig = inferenceConfig;
  if (call.topK !== undefined) {
    issues.push({ path: 'topK', reason: 'Converse has no model-independent top-k setting' });
  }
  const toolConfig = convertToolConfig(call, messages, issues);
  if (toolConfig !== undefined) body.toolConfig = toolConfig;
  if (call.reasoning !== undefined) {
    issues.push({
      path: 'reasoning',
      reason: 'Converse has no model-independent reasoning setting',
    });
  }
  if (call.responseFormat?.type === 'json') {
    issues.push({
      path: 'responseFormat',
      reason: 'Converse has no model-independent JSON output',
    });
  }
  if (call.user !== undefined) {
    if (metadataValue.test(call.user)) body.requestMetadata = { user: call.user };
    else {
      issues.push({
        path: 'user',
        reason:
          'Converse request metadata takes at most 256 letters, digits, spaces and :_@$#=/+,.-',
      });
    }
  }
  return { value: body, issues };
}
