import type {
  GenerationCall,
  ReasoningConfig,
  ResponseFormat,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import { CallOrigins } from '../../canonical/call-origins.ts';
import type { DecodedRequest } from '../surface-codec.ts';
import { decodeChatMessages } from './decode-chat-messages.ts';
import { decodeChatToolChoice, decodeChatTools } from './decode-chat-tools.ts';
import { isJsonObject, reportUnknownFields, type JsonObject } from './chat-decode-support.ts';

/** Top-level fields some decoder below reads. */
const mappedFields = new Set([
  'model',
  'messages',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stop',
  'reasoning_effort',
  'response_format',
  'user',
  'safety_identifier',
  'stream',
  'stream_options',
]);

const isZero = (value: unknown) => value === 0;
const isEmptyObject = (value: unknown) => isJsonObject(value) && Object.keys(value).length === 0;

/**
 * OpenAI-only request fields. Their default value changes nothing, so it is accepted
 * (equivalent); any other value has no counterpart on the other upstreams (docs/architecture.md).
 */
const unrepresentableFields: Record<
  string,
  { neutral: (value: unknown) => boolean; reason: string }
> = {
  n: { neutral: (value) => value === 1, reason: 'Only one choice (`n`: 1) can be generated.' },
  seed: { neutral: () => false, reason: 'Deterministic sampling (`seed`) is OpenAI-only.' },
  logprobs: { neutral: (value) => value === false, reason: 'Log probabilities are OpenAI-only.' },
  top_logprobs: { neutral: isZero, reason: 'Log probabilities are OpenAI-only.' },
  logit_bias: { neutral: isEmptyObject, reason: '`logit_bias` is OpenAI-only.' },
  presence_penalty: { neutral: isZero, reason: '`presence_penalty` is OpenAI-only.' },
  frequency_penalty: { neutral: isZero, reason: '`frequency_penalty` is OpenAI-only.' },
  modalities: {
    neutral: (value) => Array.isArray(value) && value.length === 1 && value[0] === 'text',
    reason: 'Only text output can be generated on this route.',
  },
  audio: { neutral: () => false, reason: 'Audio output cannot be generated on this route.' },
  prediction: { neutral: () => false, reason: 'Predicted outputs are OpenAI-only.' },
  web_search_options: {
    neutral: () => false,
    reason: 'Built-in web search is OpenAI-only; use POST /v1/search or a function tool.',
  },
  service_tier: {
    neutral: (value) => value === 'auto',
    reason: 'Service tiers are OpenAI-only.',
  },
  store: {
    neutral: (value) => value === false,
    reason: 'Storing completions at the upstream is OpenAI-only.',
  },
  metadata: { neutral: isEmptyObject, reason: 'Stored-completion metadata is OpenAI-only.' },
};

const chatReasoningEfforts = new Set(['minimal', 'low', 'medium', 'high', 'xhigh']);

/**
 * A chat-completions body (already validated against `chatRequestSchema`) → the canonical call.
 * Every field is mapped, accepted as equivalent, or reported with its JSON path. `null` counts as
 * absent, as at OpenAI.
 */
export function decodeChatRequest(body: Record<string, unknown>): DecodedRequest {
  const issues: TranslationIssue[] = [];
  const origins = new CallOrigins({ input: 'function.arguments' });
  const present = (key: string) => body[key] !== undefined && body[key] !== null;

  for (const [key, rule] of Object.entries(unrepresentableFields)) {
    if (present(key) && !rule.neutral(body[key])) issues.push({ path: key, reason: rule.reason });
  }
  reportUnknownFields(
    Object.fromEntries(Object.entries(body).filter(([key]) => !(key in unrepresentableFields))),
    mappedFields,
    '',
    issues,
  );

  const call: GenerationCall = {
    model: typeof body['model'] === 'string' ? body['model'] : '',
    messages: decodeChatMessages(body['messages'], issues, origins),
    tools: decodeChatTools(body['tools'], issues),
    stream: body['stream'] === true,
  };
  const toolChoice = decodeChatToolChoice(body['tool_choice'], issues);
  if (toolChoice !== undefined) call.toolChoice = toolChoice;
  const parallel = readTyped(body, 'parallel_tool_calls', 'boolean', issues);
  if (parallel !== undefined) call.parallelToolCalls = parallel;
  const maxOutputTokens = decodeMaxTokens(body, issues);
  if (maxOutputTokens !== undefined) call.maxOutputTokens = maxOutputTokens;
  const temperature = readTyped(body, 'temperature', 'number', issues);
  if (temperature !== undefined) call.temperature = temperature;
  const topP = readTyped(body, 'top_p', 'number', issues);
  if (topP !== undefined) call.topP = topP;
  const stop = decodeStop(body['stop'], issues);
  if (stop !== undefined) call.stopSequences = stop;
  const reasoning = decodeReasoningEffort(body['reasoning_effort'], issues);
  if (reasoning !== undefined) call.reasoning = reasoning;
  const responseFormat = decodeResponseFormat(body['response_format'], issues);
  if (responseFormat !== undefined) call.responseFormat = responseFormat;
  const user = decodeUser(body, issues);
  if (user !== undefined) call.user = user;
  decodeStreamOptions(body['stream_options'], issues);
  origins.recordField(
    'maxOutputTokens',
    present('max_tokens') ? 'max_tokens' : 'max_completion_tokens',
  );
  origins.recordField('topP', 'top_p');
  origins.recordField('stopSequences', 'stop');
  origins.recordField('reasoning', 'reasoning_effort');
  origins.recordField('reasoning.effort', 'reasoning_effort');
  origins.recordField('responseFormat', 'response_format');
  origins.recordField('parallelToolCalls', 'parallel_tool_calls');
  origins.recordField('user', present('user') ? 'user' : 'safety_identifier');
  return { value: call, issues, origins };
}

function readTyped<T extends 'boolean' | 'number' | 'string'>(
  body: JsonObject,
  key: string,
  type: T,
  issues: TranslationIssue[],
): (T extends 'boolean' ? boolean : T extends 'number' ? number : string) | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value === type) return value as never;
  issues.push({ path: key, reason: `\`${key}\` must be a ${type}.` });
  return undefined;
}

/** `max_completion_tokens` replaced the deprecated `max_tokens`; both mean the output limit. */
function decodeMaxTokens(body: JsonObject, issues: TranslationIssue[]): number | undefined {
  const legacy = readTyped(body, 'max_tokens', 'number', issues);
  const current = readTyped(body, 'max_completion_tokens', 'number', issues);
  if (legacy !== undefined && current !== undefined && legacy !== current) {
    issues.push({
      path: 'max_tokens',
      reason: '`max_tokens` and `max_completion_tokens` differ; send one of them.',
    });
  }
  return current ?? legacy;
}

function decodeStop(value: unknown, issues: TranslationIssue[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    return value.length === 0 ? undefined : [...(value as string[])];
  }
  issues.push({ path: 'stop', reason: '`stop` must be a string or an array of strings.' });
  return undefined;
}

function decodeReasoningEffort(
  value: unknown,
  issues: TranslationIssue[],
): ReasoningConfig | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'none') return { type: 'disabled' };
  if (typeof value === 'string' && chatReasoningEfforts.has(value)) {
    return { type: 'effort', effort: value as 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' };
  }
  issues.push({
    path: 'reasoning_effort',
    reason: `Unknown reasoning effort \`${String(value)}\`; use none, minimal, low, medium, high or xhigh.`,
  });
  return undefined;
}

function decodeResponseFormat(
  value: unknown,
  issues: TranslationIssue[],
): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isJsonObject(value)) {
    issues.push({ path: 'response_format', reason: '`response_format` must be an object.' });
    return undefined;
  }
  const type = value['type'];
  if (type === 'text' || type === 'json_object') {
    reportUnknownFields(value, new Set(['type']), 'response_format', issues);
    return type === 'text' ? { type: 'text' } : { type: 'json' };
  }
  if (type === 'json_schema') {
    reportUnknownFields(value, new Set(['type', 'json_schema']), 'response_format', issues);
    const spec = value['json_schema'];
    if (!isJsonObject(spec)) {
      issues.push({
        path: 'response_format.json_schema',
        reason: '`json_schema` must be an object.',
      });
      return undefined;
    }
    // `description` only guides the model at OpenAI; no other upstream has a place for it.
    reportUnknownFields(
      spec,
      new Set(['name', 'schema', 'strict']),
      'response_format.json_schema',
      issues,
    );
    const format: ResponseFormat = { type: 'json' };
    if (isJsonObject(spec['schema'])) format.schema = spec['schema'];
    if (typeof spec['name'] === 'string') format.name = spec['name'];
    if (typeof spec['strict'] === 'boolean') format.strict = spec['strict'];
    return format;
  }
  issues.push({
    path: 'response_format.type',
    reason: `Response format \`${String(type)}\` is not supported; use text, json_object or json_schema.`,
  });
  return undefined;
}

/** `safety_identifier` is OpenAI's successor of `user`; both name the end user. */
function decodeUser(body: JsonObject, issues: TranslationIssue[]): string | undefined {
  const user = readTyped(body, 'user', 'string', issues);
  const safetyIdentifier = readTyped(body, 'safety_identifier', 'string', issues);
  if (user !== undefined && safetyIdentifier !== undefined && user !== safetyIdentifier) {
    issues.push({
      path: 'safety_identifier',
      reason: '`user` and `safety_identifier` differ; send one of them.',
    });
  }
  return safetyIdentifier ?? user;
}

/**
 * `include_usage` is honoured by the stream encoder (see `readChatStreamEncoderOptions`);
 * `include_obfuscation` only pads chunks against a side channel at OpenAI and changes no content.
 */
function decodeStreamOptions(value: unknown, issues: TranslationIssue[]): void {
  if (value === undefined || value === null) return;
  if (!isJsonObject(value)) {
    issues.push({ path: 'stream_options', reason: '`stream_options` must be an object.' });
    return;
  }
  reportUnknownFields(
    value,
    new Set(['include_usage', 'include_obfuscation']),
    'stream_options',
    issues,
  );
}
