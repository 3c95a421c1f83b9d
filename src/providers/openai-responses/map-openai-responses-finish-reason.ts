import type { FinishReason } from '../../canonical/finish-reason.ts';

export interface OpenAIResponsesEnding {
  /** The response `status`. */
  status: string | undefined;
  /** `incomplete_details.reason` of an incomplete response. */
  incompleteReason?: string | undefined;
  /** Whether the output held a function call: the dialect has no finish word for tool use. */
  hasFunctionCall: boolean;
}

/**
 * The dialect ends a response with a status, and an incomplete one with a reason; `raw` is that
 * reason when there is one, else the status.
 */
export function mapOpenAIResponsesFinishReason(ending: OpenAIResponsesEnding): FinishReason {
  const { status, incompleteReason, hasFunctionCall } = ending;
  switch (status) {
    case 'completed':
      return { unified: hasFunctionCall ? 'tool-calls' : 'stop', raw: status };
    case 'incomplete':
      if (incompleteReason === 'max_output_tokens')
        return { unified: 'length', raw: incompleteReason };
      if (incompleteReason === 'content_filter')
        return { unified: 'content-filter', raw: incompleteReason };
      return { unified: 'other', raw: incompleteReason ?? status };
    case 'failed':
      return { unified: 'error', raw: status };
    default:
      return { unified: 'other', raw: status };
  }
}
