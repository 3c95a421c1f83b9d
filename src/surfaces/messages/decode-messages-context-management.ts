import type { TranslationIssue } from '../../canonical/generation-call.ts';
import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

/**
 * The one context edit that changes nothing: `clear_thinking_20251015` with `keep: "all"` keeps
 * every earlier thinking block (Anthropic "Context editing" docs), which is what a translated
 * request does anyway. Claude Code sends it on every call (docs/clients.md).
 */
function keepsEverything(edit: unknown): boolean {
  return isJsonObject(edit) && edit.type === 'clear_thinking_20251015' && edit.keep === 'all';
}

/**
 * `context_management` is equivalent when none of its edits removes anything
 * (docs/decisions/0011); an edit that clears tool results or thinking changes what the model
 * sees and is reported with its own path.
 */
export function decodeMessagesContextManagement(value: unknown, issues: TranslationIssue[]): void {
  if (value === undefined) return;
  const reason = 'this context edit has no equivalent outside the message-style dialect';
  if (!isJsonObject(value)) {
    issues.push({ path: 'context_management', reason: 'context_management must be an object' });
    return;
  }
  for (const key of Object.keys(value)) {
    if (key !== 'edits') issues.push({ path: `context_management.${key}`, reason });
  }
  if (value.edits === undefined) return;
  if (!Array.isArray(value.edits)) {
    issues.push({ path: 'context_management.edits', reason: 'edits must be an array' });
    return;
  }
  value.edits.forEach((edit: unknown, index) => {
    if (!keepsEverything(edit)) issues.push({ path: `context_management.edits[${index}]`, reason });
  });
}
