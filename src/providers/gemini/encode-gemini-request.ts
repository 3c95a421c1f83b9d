import type {
  CodecResult,
  FunctionTool,
  GenerationCall,
  ReasoningConfig,
  ToolChoice,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import type { ProviderRequestOptions } from '../provider-codec.ts';
import { convertToGeminiJsonSchema } from './convert-to-gemini-json-schema.ts';
import { encodeGeminiContents } from './encode-gemini-contents.ts';

/** Gemini refuses more stop sequences than this (GenerationConfig.stopSequences). */
const maxStopSequences = 5;

/** Gemini 3's `thinkingLevel` words; higher canonical efforts have none. */
const thinkingLevels = new Set(['minimal', 'low', 'medium', 'high']);

function functionDeclaration(
  tool: FunctionTool,
  index: number,
  issues: TranslationIssue[],
): Record<string, unknown> {
  // Tool arguments are always an object; a schema without `type` means the same thing.
  const inputSchema =
    'type' in tool.inputSchema ? tool.inputSchema : { type: 'object', ...tool.inputSchema };
  const { schema, unsupported } = convertToGeminiJsonSchema(inputSchema);
  for (const keyword of unsupported) {
    issues.push({
      path: `tools[${index}]`,
      reason: `Gemini cannot express the JSON Schema keyword at ${keyword} of tool "${tool.name}"`,
    });
  }
  // `strict` needs nothing: Gemini always holds arguments to the declared schema.
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    parametersJsonSchema: schema,
  };
}

function functionCallingConfig(choice: ToolChoice): Record<string, unknown> {
  switch (choice.type) {
    case 'auto':
      return { mode: 'AUTO' };
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return { mode: 'ANY' };
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [choice.toolName] };
  }
}

/**
 * Reasoning settings as `thinkingConfig`, always with the thoughts included so the client sees
 * them. An effort without a level leaves the budget to the model; a summary style is not sent:
 * Gemini's included thoughts are summaries already, the observable equivalent.
 */
function thinkingConfig(
  reasoning: ReasoningConfig,
  issues: TranslationIssue[],
): Record<string, unknown> {
  switch (reasoning.type) {
    case 'disabled':
      return { thinkingBudget: 0 };
    case 'budget':
      return { thinkingBudget: reasoning.budgetTokens, includeThoughts: true };
    case 'effort':
      if (reasoning.effort === undefined) return { includeThoughts: true };
      if (!thinkingLevels.has(reasoning.effort)) {
        issues.push({
          path: 'reasoning.effort',
          reason: `Gemini has no "${reasoning.effort}" thinking level (minimal, low, medium, high)`,
        });
        return { includeThoughts: true };
      }
      return { thinkingLevel: reasoning.effort, includeThoughts: true };
  }
}

function generationConfig(
  call: GenerationCall,
  issues: TranslationIssue[],
): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (call.maxOutputTokens !== undefined) config.maxOutputTokens = call.maxOutputTokens;
  if (call.temperature !== undefined) config.temperature = call.temperature;
  if (call.topP !== undefined) config.topP = call.topP;
  if (call.topK !== undefined) config.topK = call.topK;
  if (call.stopSequences !== undefined && call.stopSequences.length > 0) {
    if (call.stopSequences.length > maxStopSequences) {
      issues.push({
        path: 'stopSequences',
        reason: `Gemini takes at most ${maxStopSequences} stop sequences`,
      });
    }
    config.stopSequences = call.stopSequences;
  }
  const format = call.responseFormat;
  if (format?.type === 'json') {
    config.responseMimeType = 'application/json';
    if (format.schema !== undefined) {
      const { schema, unsupported } = convertToGeminiJsonSchema(format.schema);
      for (const keyword of unsupported) {
        issues.push({
          path: 'responseFormat',
          reason: `Gemini cannot express the JSON Schema keyword at ${keyword} of the response format`,
        });
      }
      // The schema's name only labels it and Gemini always holds the output to it (strict).
      config.responseJsonSchema = schema;
    }
  }
  if (call.reasoning !== undefined) config.thinkingConfig = thinkingConfig(call.reasoning, issues);
  return config;
}

/**
 * The canonical call as a Gemini `generateContent` body, the same for the Gemini API and for
 * Gemini models on Vertex AI (which take the model and the stream choice in the path). One
 * candidate is asked for, Gemini's default.
 */
export function encodeGeminiRequest(
  call: GenerationCall,
  _options: ProviderRequestOptions,
): CodecResult<Record<string, unknown>> {
  const issues: TranslationIssue[] = [];
  const { systemInstruction, contents } = encodeGeminiContents(call.messages, issues);
  const body: Record<string, unknown> = { contents };
  if (systemInstruction !== undefined) body.systemInstruction = systemInstruction;
  if (call.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: call.tools.map((tool, index) =>
          functionDeclaration(tool, index, issues),
        ),
      },
    ];
  }
  // Without declarations there is nothing to choose from; Gemini answers in text either way.
  if (call.toolChoice !== undefined && call.tools.length > 0) {
    body.toolConfig = { functionCallingConfig: functionCallingConfig(call.toolChoice) };
  }
  if (call.parallelToolCalls === false && call.tools.length > 0) {
    issues.push({
      path: 'parallelToolCalls',
      reason: 'Gemini cannot be kept from calling several functions at once',
    });
  }
  if (call.user !== undefined) {
    issues.push({ path: 'user', reason: 'Gemini has no end-user identifier' });
  }
  const config = generationConfig(call, issues);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  return { value: body, issues };
}
