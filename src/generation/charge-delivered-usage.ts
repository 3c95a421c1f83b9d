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

/** What the charge of an answer without the upstream's final count is bounded by. */
export interface ChargeBounds {
  /** The prompt's local count, asked only when the upstream reported none. */
  countPrompt(): number;
  /** The output limit the upstream was sent: a completed answer is never charged more. */
  outputLimit: number;
}

/**
 * The usage a call is billed for when the upstream's own final count is missing: a stream cut
 * short (client gone, upstream cut, upstream error, broken frame) or one that ended without a
 * usage report. docs/decisions/0016: the client pays for the input the upstream read and the
 * output it was sent. Nothing reached the client: nothing is charged. Otherwise the input is the
 * upstream's own count when it gave one (Anthropic's start event does), else the local count of
 * the prompt, never the hold's bound (docs/decisions/0102); the output is the delivered text at
 * four characters a token, at most the output limit the upstream was sent, or the upstream's
 * count so far if that is larger. So a cut call is not charged more than the same call completed.
 */
export function chargeDeliveredUsage(
  reported: Usage | undefined,
  delivered: Delivered,
  bounds: ChargeBounds,
): Usage | undefined {
  if (delivered.events === 0) return undefined;
  const output = Math.min(Math.ceil(delivered.characters / charactersPerToken), bounds.outputLimit);
  const base =
    reported !== undefined && reported.inputTokens.total > 0
      ? reported
      : {
          ...usageFromParts({ noCache: bounds.countPrompt(), output: 0 }),
          outputTokens: reported?.outputTokens ?? { total: 0, reasoning: 0 },
        };
  if (base.outputTokens.total >= output) return base;
  return { ...base, outputTokens: { ...base.outputTokens, total: output } };
}
