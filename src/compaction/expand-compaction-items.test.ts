import { describe, expect, it } from 'vitest';
import { ApiError } from '../canonical/generation-error.ts';
import { compactionInstruction, renderCompactionSummary } from './compaction-instruction.ts';
import { createCompactionSeal } from './compaction-seal.ts';
import { expandCompactionItems } from './expand-compaction-items.ts';

const seal = createCompactionSeal('expand-test-secret-long-enough-0123456789');
const open = (token: string) => seal.open(token, 'acct_1');
const user = { role: 'user', content: 'next question' };

function summaryItem(summary: string, account = 'acct_1') {
  return {
    type: 'compaction',
    id: 'cmp_1',
    encrypted_content: seal.seal({ kind: 'summary', summary }, account),
  };
}

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('expandCompactionItems', () => {
  it('replaces a gateway summary by a user message carrying it, in place', () => {
    const items = [{ role: 'developer', content: 'rules' }, summaryItem('We fixed the bug.'), user];
    const expanded = expandCompactionItems(items, { open, compactingProvider: undefined });
    expect(expanded).toEqual([
      items[0],
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: renderCompactionSummary('We fixed the bug.') }],
      },
      user,
    ]);
    expect(JSON.stringify(expanded)).toContain('We fixed the bug.');
  });

  it('gives an upstream-made item its own encrypted content back, for that upstream only', () => {
    const item = {
      type: 'compaction',
      id: 'cmp_up',
      encrypted_content: seal.seal(
        { kind: 'upstream', provider: 'openai', encryptedContent: 'gAAA-upstream' },
        'acct_1',
      ),
    };
    expect(expandCompactionItems([item], { open, compactingProvider: 'openai' })).toEqual([
      { type: 'compaction', id: 'cmp_up', encrypted_content: 'gAAA-upstream' },
    ]);
    const refused = refusal(() =>
      expandCompactionItems([user, item], { open, compactingProvider: undefined }),
    );
    expect(refused.status).toBe(400);
    expect(refused.details).toEqual({ param: 'input[1]' });
    expect(refused.message).toMatch(/^input\[1\]: .*only that upstream can read it/);
    expect(() => expandCompactionItems([item], { open, compactingProvider: 'azure' })).toThrow(
      ApiError,
    );
  });

  it.each([
    ['an item sealed for another account', summaryItem('x', 'acct_2'), /altered, or it belongs/],
    ['an unknown format', { type: 'compaction', encrypted_content: 'gAAAAB' }, /unknown format/],
    ['no encrypted content', { type: 'compaction' }, /needs its encrypted_content/],
  ])('refuses %s with a 400 naming the item', (_name, item, message) => {
    const refused = refusal(() =>
      expandCompactionItems([user, user, item], { open, compactingProvider: undefined }),
    );
    expect(refused.type).toBe('invalid_request_error');
    expect(refused.details).toEqual({ param: 'input[2]' });
    expect(refused.message).toMatch(message);
  });

  it('leaves input without compaction items as it is', () => {
    const items = [user, { type: 'function_call_output', call_id: 'c', output: 'ok' }];
    expect(expandCompactionItems(items, { open, compactingProvider: undefined })).toEqual(items);
  });

  it('keeps the summary request out of the expansion', () => {
    const expanded = expandCompactionItems([summaryItem('s')], {
      open,
      compactingProvider: undefined,
    });
    expect(JSON.stringify(expanded)).not.toContain(compactionInstruction.slice(0, 30));
  });
});
