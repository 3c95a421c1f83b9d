import { ApiError } from '../canonical/generation-error.ts';
import { renderCompactionSummary } from './compaction-instruction.ts';
import type { OpenedCompaction } from './compaction-seal.ts';

export interface ExpansionContext {
  /** Opens a sealed token for the calling account. */
  open(token: string): OpenedCompaction;
  /**
   * The provider id of the model's first deployment when that deployment forwards compaction:
   * the only upstream an item it made can go back to (docs/decisions/0013).
   */
  compactingProvider: string | undefined;
}

type Item = Record<string, unknown>;

const isItem = (value: unknown): value is Item =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A 400 that names the item, so a client can tell which one of a long history was refused. */
export function compactionItemError(index: number, message: string): ApiError {
  const param = `input[${index}]`;
  return new ApiError('invalid_request', `${param}: ${message}`, { details: { param } });
}

const refusals: Record<Exclude<OpenedCompaction, { ok: true }>['reason'], string> = {
  format:
    'this compaction item was not made by this gateway (its encrypted_content has an unknown format); compaction items can only be sent back to the gateway that returned them.',
  key: 'this compaction item was sealed with a key this gateway no longer uses; compact the conversation again from its full history.',
  integrity: 'this compaction item was altered, or it belongs to another account.',
};

/**
 * Replaces each gateway compaction item of a responses `input` by what the upstream understands
 * (docs/translation.md, "Compaction"): a summary the gateway wrote becomes a user message carrying
 * it, on every route; an item an upstream made gets its own `encrypted_content` back, for that
 * upstream only. Anything that does not open is refused, never dropped (docs/api.md). Other items
 * are returned as they are, in order.
 */
export function expandCompactionItems(
  items: readonly unknown[],
  context: ExpansionContext,
): unknown[] {
  if (!items.some((item) => isItem(item) && item.type === 'compaction')) return [...items];
  return items.map((item, index) => {
    if (!isItem(item) || item.type !== 'compaction') return item;
    const token = item.encrypted_content;
    if (typeof token !== 'string') {
      throw compactionItemError(index, 'a compaction item needs its encrypted_content.');
    }
    const opened = context.open(token);
    if (!opened.ok) throw compactionItemError(index, refusals[opened.reason]);
    const { payload } = opened;
    if (payload.kind === 'summary') {
      return {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: renderCompactionSummary(payload.summary) }],
      };
    }
    if (payload.provider !== context.compactingProvider) {
      throw compactionItemError(
        index,
        'this compaction item was made by an upstream that compacts by itself, and only that upstream can read it; the model is not served there now. Compact the conversation again from its full history, or start a new one.',
      );
    }
    return { ...item, encrypted_content: payload.encryptedContent };
  });
}
