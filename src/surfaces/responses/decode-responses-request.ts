import type { GenerationCall, TranslationIssue } from '../../canonical/generation-call.ts';
import { CallOrigins } from '../../canonical/call-origins.ts';
import { omitNullFields } from '../../shared/omit-null-fields.ts';
import type { DecodedRequest } from '../surface-codec.ts';
import { checkResponsesStateFields, responsesStateFields } from './check-responses-state-fields.ts';
import { decodeResponsesInput } from './decode-responses-input.ts';
import {
  decodeResponsesReasoning,
  decodeResponsesText,
} from './decode-responses-output-options.ts';
import { decodeResponsesToolChoice, decodeResponsesTools } from './decode-responses-tools.ts';
import { isAbsent, isRecord, reportUnknownFields } from './responses-json-value.ts';

type FieldDecoder = (value: unknown, call: GenerationCall, issues: TranslationIssue[]) => void;

const ignore: FieldDecoder = () => undefined;

/** A field whose listed values change nothing observable; any other value is an issue. */
const equivalentWhen =
  (field: string, accepted: readonly unknown[], reason: string): FieldDecoder =>
  (value, _call, issues) => {
    if (!isAbsent(value) && !accepted.includes(value)) issues.push({ path: field, reason });
  };

const numberField =
  (field: string, assign: (call: GenerationCall, value: number) => void): FieldDecoder =>
  (value, call, issues) => {
    if (isAbsent(value)) return;
    if (typeof value === 'number') assign(call, value);
    else issues.push({ path: field, reason: 'Must be a number.' });
  };

/**
 * Every top-level field of the dialect that this surface knows, each in one class of the
 * translation policy (docs/architecture.md, docs/translation.md). A field not
 * in this table is reported as an issue: the pipeline, not the codec, may let an operator allow it.
 */
const fieldDecoders = new Map<string, FieldDecoder>([
  // Decoded together below: instructions lead the input.
  ['model', ignore],
  ['input', ignore],
  ['instructions', ignore],
  ['tools', ignore],
  ...responsesStateFields.map((field): [string, FieldDecoder] => [field, ignore]),
  ['stream', (value, call) => (call.stream = value === true)],
  [
    'tool_choice',
    (value, call, issues) => {
      const toolChoice = decodeResponsesToolChoice(value, issues);
      if (toolChoice !== undefined) call.toolChoice = toolChoice;
    },
  ],
  [
    'parallel_tool_calls',
    (value, call) => {
      if (typeof value === 'boolean') call.parallelToolCalls = value;
    },
  ],
  [
    'max_output_tokens',
    numberField('max_output_tokens', (call, value) => (call.maxOutputTokens = value)),
  ],
  ['temperature', numberField('temperature', (call, value) => (call.temperature = value))],
  ['top_p', numberField('top_p', (call, value) => (call.topP = value))],
  [
    'reasoning',
    (value, call, issues) => {
      const reasoning = decodeResponsesReasoning(value, issues);
      if (reasoning !== undefined) call.reasoning = reasoning;
    },
  ],
  [
    'text',
    (value, call, issues) => {
      const responseFormat = decodeResponsesText(value, issues);
      if (responseFormat !== undefined) call.responseFormat = responseFormat;
    },
  ],
  ['include', decodeInclude],
  ['user', decodeUser('user')],
  ['safety_identifier', decodeUser('safety_identifier')],
  // A routing hint for OpenAI's prompt cache; other upstreams cache by prefix or by marker.
  ['prompt_cache_key', ignore],
  // Client telemetry (Codex); it shapes nothing the model sees or returns.
  ['client_metadata', ignore],
  [
    'metadata',
    (value, _call, issues) => {
      if (isRecord(value) && Object.keys(value).length > 0) {
        issues.push({
          path: 'metadata',
          reason:
            'Metadata is only read back by retrieving a stored response, which this gateway does not offer.',
        });
      }
    },
  ],
  ['stream_options', decodeStreamOptions],
  [
    'prompt_cache_retention',
    equivalentWhen(
      'prompt_cache_retention',
      ['in-memory', 'in_memory'],
      'Extended prompt cache retention has no equivalent on this route.',
    ),
  ],
  [
    'service_tier',
    equivalentWhen(
      'service_tier',
      ['auto', 'default'],
      'Service tiers have no equivalent on this route.',
    ),
  ],
  [
    'truncation',
    equivalentWhen(
      'truncation',
      ['disabled'],
      'Automatic truncation has no equivalent on this route.',
    ),
  ],
  [
    'background',
    equivalentWhen('background', [false], 'Background responses are not available on this route.'),
  ],
  [
    'top_logprobs',
    equivalentWhen('top_logprobs', [0], 'Log probabilities have no equivalent on this route.'),
  ],
  [
    'max_tool_calls',
    equivalentWhen('max_tool_calls', [], 'A tool call limit has no equivalent on this route.'),
  ],
  [
    'prompt',
    equivalentWhen('prompt', [], 'Stored prompt templates are not available on this route.'),
  ],
]);

/** The gateway returns all the reasoning it can, encrypted content included, without being asked. */
function decodeInclude(value: unknown, _call: GenerationCall, issues: TranslationIssue[]): void {
  if (isAbsent(value)) return;
  if (!Array.isArray(value)) {
    issues.push({ path: 'include', reason: 'Must be an array.' });
    return;
  }
  value.forEach((entry: unknown, index) => {
    if (entry !== 'reasoning.encrypted_content') {
      issues.push({
        path: `include[${index}]`,
        reason: `Including ${JSON.stringify(entry)} has no equivalent on this route.`,
      });
    }
  });
}

/** `user` and its successor `safety_identifier` both name the end user for abuse tracking. */
function decodeUser(field: string): FieldDecoder {
  return (value, call, issues) => {
    if (isAbsent(value)) return;
    if (typeof value !== 'string') issues.push({ path: field, reason: 'Must be a string.' });
    else if (call.user !== undefined && call.user !== value) {
      issues.push({
        path: field,
        reason: 'user and safety_identifier must name the same end user.',
      });
    } else call.user = value;
  };
}

/** Obfuscation pads deltas against a side channel; the gateway's deltas carry no padding. */
function decodeStreamOptions(
  value: unknown,
  _call: GenerationCall,
  issues: TranslationIssue[],
): void {
  if (isRecord(value))
    reportUnknownFields(value, new Set(['include_obfuscation']), 'stream_options', issues);
}

/** The responses-style request as a canonical call, with every field it cannot carry. */
export function decodeResponsesRequest(request: Record<string, unknown>): DecodedRequest {
  // A null field is absent on every route (docs/translation.md).
  const body = omitNullFields(request);
  const issues: TranslationIssue[] = [];
  const call: GenerationCall = {
    model: typeof body.model === 'string' ? body.model : '',
    messages: [],
    tools: [],
    stream: false,
  };
  for (const [field, value] of Object.entries(body)) {
    const decode = fieldDecoders.get(field);
    if (decode === undefined) {
      issues.push({ path: field, reason: 'This field has no equivalent on this route.' });
    } else {
      decode(value, call, issues);
    }
  }
  issues.push(...checkResponsesStateFields(body));
  const origins = new CallOrigins({ input: 'arguments', content: 'output' });
  origins.recordField('maxOutputTokens', 'max_output_tokens');
  origins.recordField('topP', 'top_p');
  origins.recordField('reasoning', 'reasoning');
  origins.recordField('reasoning.effort', 'reasoning.effort');
  origins.recordField('responseFormat', 'text.format');
  origins.recordField('parallelToolCalls', 'parallel_tool_calls');
  origins.recordField('user', body.user !== undefined ? 'user' : 'safety_identifier');
  call.messages = decodeResponsesInput(body.input, body.instructions, issues, origins);
  call.tools = decodeResponsesTools(body.tools, issues);
  return { value: call, issues, origins };
}
