import type { ReasoningPart, TranslationIssue } from '../../canonical/generation-call.ts';
import { isAbsent, isRecord, reportUnknownFields } from './responses-json-value.ts';
import {
  anthropicReasoningPart,
  anthropicReasoningPrefix,
  decodeAnthropicReasoningToken,
} from './responses-reasoning-token.ts';
import { decodeGoogleReasoningToken, isGoogleReasoningToken } from '../google-reasoning-token.ts';

/** `status` and Codex's passthrough metadata describe the item, not the reasoning. */
const reasoningFields = new Set([
  'type',
  'id',
  'summary',
  'encrypted_content',
  'content',
  'status',
  'internal_chat_message_metadata_passthrough',
]);

function readTexts(
  value: unknown,
  expectedType: string,
  path: string,
  issues: TranslationIssue[],
): string[] {
  if (isAbsent(value)) return [];
  if (!Array.isArray(value)) {
    issues.push({ path, reason: 'Must be an array.' });
    return [];
  }
  const texts: string[] = [];
  value.forEach((entry, index) => {
    if (isRecord(entry) && entry.type === expectedType && typeof entry.text === 'string') {
      reportUnknownFields(entry, new Set(['type', 'text']), `${path}[${index}]`, issues);
      texts.push(entry.text);
    } else {
      issues.push({
        path: `${path}[${index}]`,
        reason: `Only ${expectedType} entries can be carried on this route.`,
      });
    }
  });
  return texts;
}

/**
 * A reasoning item. Its `encrypted_content` decides the family: a gateway `sy1.anthropic.` token
 * becomes Anthropic thinking with its exact text and signature, a `sy1.google.` token Gemini
 * reasoning with its exact text and `thoughtSignature`; any other value is OpenAI
 * reasoning, kept byte-identical with its item id and summaries; none at all is unsigned reasoning.
 */
export function decodeResponsesReasoningItem(
  item: Record<string, unknown>,
  path: string,
  issues: TranslationIssue[],
): ReasoningPart | undefined {
  reportUnknownFields(item, reasoningFields, path, issues);
  const encrypted = item.encrypted_content;
  if (typeof encrypted === 'string' && encrypted.startsWith(anthropicReasoningPrefix)) {
    const reasoning = decodeAnthropicReasoningToken(encrypted);
    if (reasoning === undefined) {
      issues.push({
        path: `${path}.encrypted_content`,
        reason: 'This reasoning token was not minted by this gateway or was altered.',
      });
      return undefined;
    }
    // The summary and content are this gateway's rendering of the same thinking; the token is exact.
    return anthropicReasoningPart(reasoning);
  }

  if (typeof encrypted === 'string' && isGoogleReasoningToken(encrypted)) {
    const reasoning = decodeGoogleReasoningToken(encrypted);
    if (reasoning === undefined) {
      issues.push({
        path: `${path}.encrypted_content`,
        reason: 'This reasoning token was not minted by this gateway or was altered.',
      });
    }
    // As for Anthropic's: the summary is this gateway's rendering; the token is exact.
    return reasoning;
  }

  const summary = readTexts(item.summary, 'summary_text', `${path}.summary`, issues);
  const content = readTexts(item.content, 'reasoning_text', `${path}.content`, issues);
  const itemId = typeof item.id === 'string' ? item.id : undefined;
  const rawText = content.join('');

  if (typeof encrypted === 'string') {
    if (rawText !== '') {
      issues.push({
        path: `${path}.content`,
        reason: 'Raw reasoning text beside encrypted reasoning has no equivalent on this route.',
      });
    }
    return {
      type: 'reasoning',
      text: summary.join('\n\n'),
      provider: 'openai',
      encryptedContent: encrypted,
      summary,
      ...(itemId !== undefined ? { itemId } : {}),
    };
  }
  if (!isAbsent(encrypted)) {
    issues.push({ path: `${path}.encrypted_content`, reason: 'Must be a string.' });
    return undefined;
  }
  if (rawText !== '' && summary.length > 0) {
    issues.push({
      path: `${path}.content`,
      reason: 'Unsigned reasoning carries one text; send either summary or content.',
    });
  }
  return {
    type: 'reasoning',
    text: rawText !== '' ? rawText : summary.join('\n\n'),
    ...(itemId !== undefined ? { itemId } : {}),
  };
}
