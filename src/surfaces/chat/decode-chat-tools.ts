import type {
  FunctionTool,
  ToolChoice,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import { isJsonObject, reportUnknownFields } from './chat-decode-support.ts';

const toolFields = new Set(['type', 'function']);
const functionFields = new Set(['name', 'description', 'parameters', 'strict']);

/**
 * OpenAI: "Omitting `parameters` defines a function with an empty parameter list", which is this
 * schema exactly.
 */
const emptyParameters = (): Record<string, unknown> => ({ type: 'object', properties: {} });

/** `tools` → canonical function tools; other tool types (custom, hosted) are issues. */
export function decodeChatTools(tools: unknown, issues: TranslationIssue[]): FunctionTool[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) {
    issues.push({ path: 'tools', reason: '`tools` must be an array.' });
    return [];
  }
  const result: FunctionTool[] = [];
  tools.forEach((tool: unknown, index) => {
    const decoded = decodeChatTool(tool, `tools[${index}]`, issues);
    if (decoded !== undefined) result.push(decoded);
  });
  return result;
}

function decodeChatTool(
  tool: unknown,
  path: string,
  issues: TranslationIssue[],
): FunctionTool | undefined {
  if (!isJsonObject(tool) || tool['type'] !== 'function') {
    const type = isJsonObject(tool) ? String(tool['type']) : typeof tool;
    issues.push({
      path: `${path}.type`,
      reason: `Tools of type \`${type}\` cannot be carried to other upstreams; only function tools.`,
    });
    return undefined;
  }
  reportUnknownFields(tool, toolFields, path, issues);
  const fn = tool['function'];
  if (!isJsonObject(fn) || typeof fn['name'] !== 'string' || fn['name'] === '') {
    issues.push({ path: `${path}.function.name`, reason: 'A function tool needs a `name`.' });
    return undefined;
  }
  reportUnknownFields(fn, functionFields, `${path}.function`, issues);
  const result: FunctionTool = {
    type: 'function',
    name: fn['name'],
    inputSchema: emptyParameters(),
  };
  const { description, parameters, strict } = fn;
  if (typeof description === 'string') result.description = description;
  else if (description !== undefined && description !== null) {
    issues.push({
      path: `${path}.function.description`,
      reason: '`description` must be a string.',
    });
  }
  if (isJsonObject(parameters)) result.inputSchema = parameters;
  else if (parameters !== undefined && parameters !== null) {
    issues.push({
      path: `${path}.function.parameters`,
      reason: '`parameters` must be a JSON Schema object.',
    });
  }
  if (typeof strict === 'boolean') result.strict = strict;
  else if (strict !== undefined && strict !== null) {
    issues.push({ path: `${path}.function.strict`, reason: '`strict` must be a boolean.' });
  }
  return result;
}

/** `tool_choice`: "auto" | "none" | "required" | {type:"function", function:{name}}. */
export function decodeChatToolChoice(
  value: unknown,
  issues: TranslationIssue[],
): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  if (isJsonObject(value) && value['type'] === 'function') {
    reportUnknownFields(value, toolFields, 'tool_choice', issues);
    const fn = value['function'];
    if (isJsonObject(fn) && typeof fn['name'] === 'string') {
      reportUnknownFields(fn, new Set(['name']), 'tool_choice.function', issues);
      return { type: 'tool', toolName: fn['name'] };
    }
    issues.push({ path: 'tool_choice.function.name', reason: 'A named tool choice needs a name.' });
    return undefined;
  }
  issues.push({
    path: 'tool_choice',
    reason:
      'Only "auto", "none", "required" or {"type":"function","function":{"name":…}} can be carried to other upstreams.',
  });
  return undefined;
}
