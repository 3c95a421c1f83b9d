import type { TranslationIssue } from '../../canonical/generation-call.ts';
import { isAbsent } from './responses-json-value.ts';

/** The top-level fields that need responses stored by the gateway (docs/decisions/0012). */
export const responsesStateFields = ['store', 'previous_response_id', 'conversation'] as const;

const notYet =
  'Stored responses are not available on this route yet; send store:false and the whole conversation in input.';

/**
 * The guard for a body that did not pass the gateway's responses state (src/responses-state,
 * docs/decisions/0012), which keeps responses, expands `previous_response_id` into `input` and
 * sends `store: false` before any decoding. A body that still carries them here was not prepared
 * and is refused rather than answered without its history. `store` false or absent is equivalent.
 */
export function checkResponsesStateFields(body: Record<string, unknown>): TranslationIssue[] {
  const issues: TranslationIssue[] = [];
  if (body.store === true) issues.push({ path: 'store', reason: notYet });
  if (!isAbsent(body.previous_response_id) && body.previous_response_id !== '') {
    issues.push({ path: 'previous_response_id', reason: notYet });
  }
  if (!isAbsent(body.conversation)) issues.push({ path: 'conversation', reason: notYet });
  return issues;
}
