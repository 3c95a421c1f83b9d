import type {
  FunctionTool,
  ToolChoice,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import { isAbsent, isRecord, reportUnknownFields } from './responses-json-value.ts';
import {
  checkNamespaceName,
  checkPlainFunctionName,
  qualifyNamespacedName,
} from './responses-namespace-name.ts';

const functionFields = new Set(['type', 'name', 'description', 'parameters', 'strict']);
const namespaceFields = new Set(['type', 'name', 'description', 'tools']);

/** A function without parameters takes none: an empty object schema says exactly that. */
const noParameters = { type: 'object', properties: {} };

function decodeFunctionTool(
  tool: Record<string, unknown>,
  name: string,
  path: string,
  issues: TranslationIssue[],
  extraDescription?: string,
): FunctionTool | undefined {
  reportUnknownFields(tool, functionFields, path, issues);
  if (!isAbsent(tool.parameters) && !isRecord(tool.parameters)) {
    issues.push({ path: `${path}.parameters`, reason: 'Must be a JSON Schema object.' });
    return undefined;
  }
  const own = typeof tool.description === 'string' ? tool.description : undefined;
  const description =
    extraDescription === undefined
      ? own
      : own === undefined
        ? extraDescription
        : `${extraDescription}\n\n${own}`;
  return {
    type: 'function',
    name,
    ...(description !== undefined ? { description } : {}),
    inputSchema: isRecord(tool.parameters) ? tool.parameters : noParameters,
    ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
  };
}

/**
 * Function tools map one to one. A `namespace` tool is flattened: each of its functions becomes
 * `<namespace>--<name>` and carries the namespace description before its own, so the model keeps
 * what the namespace told it. Built-in tools (web search, custom grammars, file search, ...) run
 * on OpenAI's side or need a grammar and have no equivalent elsewhere.
 */
export function decodeResponsesTools(tools: unknown, issues: TranslationIssue[]): FunctionTool[] {
  if (isAbsent(tools)) return [];
  if (!Array.isArray(tools)) {
    issues.push({ path: 'tools', reason: 'Must be an array.' });
    return [];
  }
  const decoded: FunctionTool[] = [];
  const seen = new Set<string>();
  const add = (tool: FunctionTool | undefined, path: string) => {
    if (tool === undefined) return;
    if (seen.has(tool.name)) {
      issues.push({ path, reason: `Another tool is already named "${tool.name}" on this route.` });
      return;
    }
    seen.add(tool.name);
    decoded.push(tool);
  };

  tools.forEach((tool, index) => {
    const path = `tools[${index}]`;
    if (!isRecord(tool) || typeof tool.name !== 'string') {
      issues.push({
        path,
        reason: `Tool type "${isRecord(tool) ? String(tool.type) : typeof tool}" has no equivalent on this route.`,
      });
      return;
    }
    if (tool.type === 'function') {
      const problem = checkPlainFunctionName(tool.name);
      if (problem !== undefined) issues.push({ path: `${path}.name`, reason: problem });
      else add(decodeFunctionTool(tool, tool.name, path, issues), path);
      return;
    }
    if (tool.type === 'namespace') {
      decodeNamespaceTool(tool, tool.name, path, issues).forEach((entry) =>
        add(entry.tool, entry.path),
      );
      return;
    }
    issues.push({
      path,
      reason: `Tool type "${String(tool.type)}" has no equivalent on this route.`,
    });
  });
  return decoded;
}

function decodeNamespaceTool(
  tool: Record<string, unknown>,
  namespace: string,
  path: string,
  issues: TranslationIssue[],
): Array<{ tool: FunctionTool | undefined; path: string }> {
  reportUnknownFields(tool, namespaceFields, path, issues);
  const problem = checkNamespaceName(namespace);
  if (problem !== undefined) {
    issues.push({ path: `${path}.name`, reason: problem });
    return [];
  }
  if (!Array.isArray(tool.tools)) {
    issues.push({ path: `${path}.tools`, reason: 'Must be an array.' });
    return [];
  }
  const description =
    typeof tool.description === 'string' && tool.description !== '' ? tool.description : undefined;
  return tool.tools.map((inner: unknown, index) => {
    const innerPath = `${path}.tools[${index}]`;
    if (!isRecord(inner) || inner.type !== 'function' || typeof inner.name !== 'string') {
      issues.push({
        path: innerPath,
        reason: 'Only function tools inside a namespace can be carried on this route.',
      });
      return { tool: undefined, path: innerPath };
    }
    const name = qualifyNamespacedName(namespace, inner.name);
    return {
      tool: decodeFunctionTool(inner, name, innerPath, issues, description),
      path: innerPath,
    };
  });
}

export function decodeResponsesToolChoice(
  choice: unknown,
  issues: TranslationIssue[],
): ToolChoice | undefined {
  if (isAbsent(choice)) return undefined;
  if (choice === 'auto' || choice === 'none' || choice === 'required') return { type: choice };
  if (isRecord(choice) && choice.type === 'function' && typeof choice.name === 'string') {
    reportUnknownFields(choice, new Set(['type', 'name', 'namespace']), 'tool_choice', issues);
    if (typeof choice.namespace === 'string') {
      return { type: 'tool', toolName: qualifyNamespacedName(choice.namespace, choice.name) };
    }
    const problem = checkPlainFunctionName(choice.name);
    if (problem !== undefined) issues.push({ path: 'tool_choice.name', reason: problem });
    return { type: 'tool', toolName: choice.name };
  }
  const kind = isRecord(choice) ? `type "${String(choice.type)}"` : JSON.stringify(choice);
  issues.push({
    path: 'tool_choice',
    reason: `Tool choice ${kind} has no equivalent on this route.`,
  });
  return undefined;
}
