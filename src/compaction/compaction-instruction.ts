/**
 * The gateway's own compaction (docs/decisions/0013): one more user turn at the end of
 * the conversation asks the model for a summary that replaces the history. At the end, not in
 * `instructions`, so the request keeps the prefix of the conversation's earlier turns and the
 * upstream's prompt cache still applies.
 */
export const compactionInstruction = [
  'Context compaction: do not continue the task in this turn and do not call any tools.',
  'The conversation above is about to be removed from your context. Write the summary that will replace it, so that you, or another assistant, can carry on the work without it. Cover:',
  "- the user's goals, requests and constraints, quoting them where the exact wording matters;",
  '- what has been done: decisions and their reasons, files and other resources read or changed, commands run and their results, tool output that still matters;',
  '- the current state: what works, what fails, errors not yet resolved, open questions;',
  '- the next steps, planned or clearly needed.',
  'Keep names, identifiers, paths, numbers and code that later work depends on exactly as they appeared. Leave out greetings and whatever no longer matters.',
  'Write in the language of the conversation, addressed to the assistant that continues, and answer with the summary only.',
].join('\n');

/** What a later request carries instead of a gateway compaction item (docs/translation.md). */
export function renderCompactionSummary(summary: string): string {
  return `The earlier part of this conversation was compacted. This summary of it replaces the messages that were removed:\n\n${summary}`;
}
