import type { FinishReason } from '../../canonical/finish-reason.ts';

/** An OpenAI chat `finish_reason` → the canonical `{unified, raw}`. */
export function mapOpenAIChatFinishReason(raw: string | null | undefined): FinishReason {
  const word = raw ?? undefined;
  switch (word) {
    case 'stop':
      return { unified: 'stop', raw: word };
    case 'length':
      return { unified: 'length', raw: word };
    case 'tool_calls':
    case 'function_call':
      return { unified: 'tool-calls', raw: word };
    case 'content_filter':
      return { unified: 'content-filter', raw: word };
    default:
      return { unified: 'other', raw: word };
  }
}
