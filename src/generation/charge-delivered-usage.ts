import { usageFromParts, type Usage } from '../canonical/usage.ts';

/** What reached the client of an answer that did not finish normally. */
export interface Delivered {
  /** Events of the answer handed to the client (any kind: a start event counts). */
  events: number;
  /** Characters of answer text, reasoning and tool arguments among them. */
  characters: number;
}

/** About four characters a token: the usual average of BPE tokenisers on text. */
const charactersPerToken = 4;

/**
 * The usage a call is billed for when the upstream's own final count is missing: a stream cut
 * short (client gone, upstream cut, upstream error, broken frame) or one that ended without a
 * usage report. docs/decisions/0016: the client pays for the input the upstream read and the
 * output it was sent. Nothing reached the client: nothing is charged. Otherwise the input is the
 * upstream's own count when it gave one (Anthropic's start event does), else the local estimate
 * of the prompt; the output is the delivered text at four characters a token, or the upstream's
 * count so far if that is larger.
 */
export function chargeDeliveredUsage(
  reported: Usage | undefined,
  delivered: Delivered,
  estimatedPromptTokens: number,
): Usage | undefined {
  if (delivered.events === 0) return undefined;
  const output = Math.ceil(delivered.characters / charactersPerToken);
  const base =
    reported !== undefined && reported.inputTokens.total > 0
      ? reported
      : {
          ...usageFromParts({ noCache: estimatedPromptTokens, output: 0 }),
          outputTokens: reported?.outputTokens ?? { total: 0, reasoning: 0 },
        };
  if (base.outputTokens.total >= output) return base;
  return { ...base, outputTokens: { ...base.outputTokens, total: output } };
}
