import { ApiError } from '../canonical/generation-error.ts';
import { emptyUsage, type Usage } from '../canonical/usage.ts';
import type { GenerationReply } from '../generation/generation-service.ts';
import { decodeOpenAIResponsesUsage } from '../providers/openai-responses/decode-openai-responses-usage.ts';
import { parseUntrustedJson } from '../shared/parse-json.ts';

export interface SummaryAnswer {
  summary: string;
  usage: Usage;
  /** Headers of the summary turn worth passing on (e.g. `x-switchyard-ignored-fields`). */
  headers: Record<string, string>;
}

type Json = Record<string, unknown>;
const isJson = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const records = (value: unknown): Json[] => (Array.isArray(value) ? value.filter(isJson) : []);

/**
 * The summary out of the summary turn's answer: a responses object, whether the gateway rendered
 * it or relayed it from a responses upstream. Its text is the message output; reasoning and
 * anything else the model produced are not part of the summary.
 */
export function readSummaryAnswer(reply: GenerationReply): SummaryAnswer {
  if (reply.kind !== 'json') throw new ApiError('internal', 'The summary turn was streamed.');
  const body = parseUntrustedJson(reply.body);
  if (!isJson(body)) throw new ApiError('upstream_error', 'The summary turn gave no response.');
  if (body.status === 'failed') {
    const error = isJson(body.error) ? body.error : {};
    const reason = typeof error.message === 'string' ? `: ${error.message}` : '.';
    throw new ApiError('upstream_error', `The model failed while writing the summary${reason}`);
  }
  const summary = records(body.output)
    .filter((item) => item.type === 'message')
    .map((item) =>
      records(item.content)
        .filter((part) => part.type === 'output_text' && typeof part.text === 'string')
        .map((part) => part.text as string)
        .join(''),
    )
    .filter((text) => text.trim() !== '')
    .join('\n\n');
  if (summary.trim() === '') {
    throw new ApiError('upstream_error', 'The model answered the compaction without a summary.');
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.headers)) {
    if (name !== 'content-type') headers[name] = value;
  }
  return { summary, usage: decodeOpenAIResponsesUsage(body.usage) ?? emptyUsage(), headers };
}
