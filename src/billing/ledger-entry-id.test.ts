import { describe, expect, it } from 'vitest';

import { ledgerEntryId } from './ledger-entry-id.ts';

describe('ledgerEntryId', () => {
  it('sorts as text in the order of the times it was made for', () => {
    const times = [0, 1, 255, 256, 1_700_000_000_000, 1_700_000_000_001, 2 ** 47];
    const ids = times.map((time) => ledgerEntryId(time));
    expect([...ids].sort()).toEqual(ids);
  });

  it('keeps ids made in the same millisecond apart, in the old id length', () => {
    const ids = new Set(Array.from({ length: 1_000 }, () => ledgerEntryId(1_700_000_000_000)));
    expect(ids.size).toBe(1_000);
    for (const id of ids) expect(id).toMatch(/^le_018bcfe56800[0-9a-f]{20}$/);
  });
});
