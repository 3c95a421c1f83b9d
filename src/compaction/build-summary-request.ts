import { compactionInstruction } from './compaction-instruction.ts';

/**
 * The summary turn of the gateway's own compaction (docs/decisions/0013) as a responses body for
 * the normal pipeline: the client's request as it is (model, instructions, tools, reasoning,
 * prompt cache key: the same prefix as its earlier turns, so the prompt cache still applies),
 * with the expanded history and the summary request as the input. What changes, and why:
 * - `tool_choice` is `none` when there are tools: the turn must answer in text;
 * - `text` is left out: its format and verbosity shape the client's answers, not the summary;
 * - `stream` and `store` are false: the gateway reads the whole summary and keeps nothing.
 */
export function buildSummaryRequest(
  body: Record<string, unknown>,
  history: readonly unknown[],
): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(body)) {
    if (field !== 'text' && field !== 'tool_choice') request[field] = value;
  }
  request.input = [
    ...history,
    {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: compactionInstruction }],
    },
  ];
  if (Array.isArray(body.tools) && body.tools.length > 0) request.tool_choice = 'none';
  request.stream = false;
  request.store = false;
  return request;
}
