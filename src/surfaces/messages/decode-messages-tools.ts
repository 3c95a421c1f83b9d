import type {
  FunctionTool,
  ToolChoice,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';
import {
  decodeMessagesCacheControl,
  reportUnknownMessagesKeys,
} from './decode-messages-cache-control.ts';

/** Client tools become function tools; tools the upstream runs itself cannot cross dialects. */
export function decodeMessagesTools(tools: unknown, issues: TranslationIssue[]): FunctionTool[] {
  if (!Array.isArray(tools)) return [];
  const decoded: FunctionTool[] = [];
  tools.forEach((tool: unknown, index) => {
    const path = `tools[${index}]`;
    if (!isJsonObject(tool)) {
      issues.push({ path, reason: 'a tool must be an object' });
      return;
    }
    if (tool.type !== undefined && tool.type !== 'custom') {
      issues.push({
        path: `${path}.type`,
        reason: `tool type "${String(tool.type)}" is run or defined by the message-style upstream and has no equivalent elsewhere`,
      });
      return;
    }
    // `eager_input_streaming` only asks the upstream not to buffer tool input; OpenAI-style
    // upstreams stream tool arguments as generated anyway, so it is equivalent there.
    // `defer_loading` keeps a definition out of the model's context until a tool search finds
    // it; sent as an ordinary tool it is callable as before, only loaded up front (decisions/0030).
    const known = [
      'type',
      'name',
      'description',
      'input_schema',
      'cache_control',
      'strict',
      'eager_input_streaming',
      'defer_loading',
    ];
    reportUnknownMessagesKeys(tool, known, path, issues);
    const cache = decodeMessagesCacheControl(tool.cache_control, `${path}.cache_control`, issues);
    decoded.push({
      type: 'function',
      name: typeof tool.name === 'string' ? tool.name : '',
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      inputSchema: isJsonObject(tool.input_schema) ? tool.input_schema : {},
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
      ...(cache !== undefined ? { cache } : {}),
    });
  });
  return decoded;
}

export interface DecodedMessagesToolChoice {
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
}

/** `any` is the dialect's word for "must call some tool" (canonical `required`). */
export function decodeMessagesToolChoice(
  value: unknown,
  issues: TranslationIssue[],
): DecodedMessagesToolChoice {
  if (value === undefined) return {};
  const choice = typeof value === 'string' ? { type: value } : value;
  if (!isJsonObject(choice)) {
    issues.push({ path: 'tool_choice', reason: 'tool_choice must be a string or an object' });
    return {};
  }
  reportUnknownMessagesKeys(
    choice,
    ['type', 'name', 'disable_parallel_tool_use'],
    'tool_choice',
    issues,
  );
  const decoded: DecodedMessagesToolChoice = {};
  switch (choice.type) {
    case 'auto':
      decoded.toolChoice = { type: 'auto' };
      break;
    case 'any':
      decoded.toolChoice = { type: 'required' };
      break;
    case 'none':
      decoded.toolChoice = { type: 'none' };
      break;
    case 'tool':
      if (typeof choice.name !== 'string') {
        issues.push({ path: 'tool_choice.name', reason: 'a "tool" choice needs the tool name' });
      } else {
        decoded.toolChoice = { type: 'tool', toolName: choice.name };
      }
      break;
    default:
      issues.push({
        path: 'tool_choice.type',
        reason: `tool_choice "${String(choice.type)}" is not one of auto, any, tool, none`,
      });
  }
  if (typeof choice.disable_parallel_tool_use === 'boolean') {
    decoded.parallelToolCalls = !choice.disable_parallel_tool_use;
  }
  return decoded;
}
