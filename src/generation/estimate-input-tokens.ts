/**
 * An upper estimate of the prompt's tokens from the request size, used only to size the credit
 * hold and the tokens-per-minute charge before the upstream reports the truth. Tokenisers
 * average about four bytes per token on text; three keeps the hold on the safe side, and the
 * context window bounds it.
 */
export function estimateInputTokens(bodyBytes: number, contextWindow: number): number {
  return Math.min(contextWindow, Math.ceil(bodyBytes / 3));
}
