import type {
  ReasoningConfig,
  ReasoningEffort,
  ResponseFormat,
  TranslationIssue,
} from '../../canonical/generation-call.ts';
import { isAbsent, isRecord, reportUnknownFields } from './responses-json-value.ts';

/** `reasoning` and `text`: how much the model thinks and what shape its answer takes. */

const efforts = new Set<string>(['minimal', 'low', 'medium', 'high', 'xhigh']);
const summaries = new Set<string>(['auto', 'concise', 'detailed']);

/**
 * `effort: "none"` turns reasoning off. `summary: "none"` (Codex) or null asks for no summaries,
 * which is the default. `generate_summary` is the older name of `summary`.
 */
export function decodeResponsesReasoning(
  value: unknown,
  issues: TranslationIssue[],
): ReasoningConfig | undefined {
  if (isAbsent(value)) return undefined;
  if (!isRecord(value)) {
    issues.push({ path: 'reasoning', reason: 'Must be an object.' });
    return undefined;
  }
  reportUnknownFields(
    value,
    new Set(['effort', 'summary', 'generate_summary']),
    'reasoning',
    issues,
  );
  const summaryField = isAbsent(value.summary) ? 'generate_summary' : 'summary';
  const summary = value[summaryField];
  let summaryValue: 'auto' | 'concise' | 'detailed' | undefined;
  if (typeof summary === 'string' && summaries.has(summary)) {
    summaryValue = summary as 'auto' | 'concise' | 'detailed';
  } else if (!isAbsent(summary) && summary !== 'none') {
    issues.push({
      path: `reasoning.${summaryField}`,
      reason: `Reasoning summary ${JSON.stringify(summary)} has no equivalent on this route.`,
    });
  }
  const effort = value.effort;
  if (effort === 'none') return { type: 'disabled' };
  if (!isAbsent(effort) && !(typeof effort === 'string' && efforts.has(effort))) {
    issues.push({
      path: 'reasoning.effort',
      reason: `Reasoning effort ${JSON.stringify(effort)} has no equivalent on this route.`,
    });
    return undefined;
  }
  if (isAbsent(effort) && summaryValue === undefined) return undefined;
  return {
    type: 'effort',
    ...(typeof effort === 'string' ? { effort: effort as ReasoningEffort } : {}),
    ...(summaryValue !== undefined ? { summary: summaryValue } : {}),
  };
}

const jsonSchemaFields = new Set(['type', 'name', 'schema', 'strict', 'description']);

/**
 * `text.format` maps to the response format. `text.verbosity` other than `medium` (the default)
 * asks OpenAI models for shorter or longer answers; no other upstream has that control.
 */
export function decodeResponsesText(
  value: unknown,
  issues: TranslationIssue[],
): ResponseFormat | undefined {
  if (isAbsent(value)) return undefined;
  if (!isRecord(value)) {
    issues.push({ path: 'text', reason: 'Must be an object.' });
    return undefined;
  }
  reportUnknownFields(value, new Set(['format', 'verbosity']), 'text', issues);
  if (!isAbsent(value.verbosity) && value.verbosity !== 'medium') {
    issues.push({
      path: 'text.verbosity',
      reason: `Verbosity ${JSON.stringify(value.verbosity)} has no equivalent on this route; omit it or send "medium".`,
    });
  }
  const format = value.format;
  if (isAbsent(format)) return undefined;
  if (!isRecord(format)) {
    issues.push({ path: 'text.format', reason: 'Must be an object.' });
    return undefined;
  }
  if (format.type === 'text') {
    reportUnknownFields(format, new Set(['type']), 'text.format', issues);
    return { type: 'text' };
  }
  if (format.type === 'json_object') {
    reportUnknownFields(format, new Set(['type']), 'text.format', issues);
    return { type: 'json' };
  }
  if (format.type === 'json_schema' && isRecord(format.schema)) {
    reportUnknownFields(format, jsonSchemaFields, 'text.format', issues);
    if (typeof format.description === 'string' && format.description !== '') {
      issues.push({
        path: 'text.format.description',
        reason: 'A response format description has no equivalent on this route.',
      });
    }
    return {
      type: 'json',
      schema: format.schema,
      ...(typeof format.name === 'string' ? { name: format.name } : {}),
      ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
    };
  }
  issues.push({
    path: 'text.format.type',
    reason: `Text format ${JSON.stringify(format.type)} has no equivalent on this route.`,
  });
  return undefined;
}
