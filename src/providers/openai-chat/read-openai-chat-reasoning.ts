/**
 * Unsigned reasoning text of a chat message or delta: `reasoning_content` (DeepSeek, vLLM) or
 * `reasoning` (OpenRouter, newer vLLM). Servers that send both send the same text; it is read once.
 */
export function readOpenAIChatReasoning(source: Record<string, unknown>): string {
  const reasoningContent = source['reasoning_content'];
  if (typeof reasoningContent === 'string') return reasoningContent;
  const reasoning = source['reasoning'];
  return typeof reasoning === 'string' ? reasoning : '';
}
