/**
 * OpenAI-style tool outputs have no error flag. A failed tool's result is carried as text that
 * says so (docs/decisions/0004), so the model reads a failure, not a normal result: the flag is
 * mapped into the content rather than dropped.
 */
export function markToolError(text: string): string {
  return /^\s*error\b/i.test(text) ? text : `Error: ${text}`;
}
