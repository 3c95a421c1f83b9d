import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { CreditLedger, Settlement, SettlementResult } from './credit-ledger.ts';
import { FileSettlementSpool } from './file-settlement-spool.ts';
import { SettlementOutbox } from './settlement-outbox.ts';

/** A ledger whose settle fails while `down` is true, and remembers what landed, once per id. */
function flakyLedger() {
  const landed = new Map<string, SettlementResult>();
  const state = { down: true, attempts: 0 };
  const ledger = {
    async settle(settlement: Settlement): Promise<SettlementResult> {
      state.attempts += 1;
      if (state.down) throw new Error('the store is down');
      const result = landed.get(settlement.id) ?? { charged: settlement.cost, shortfall: 0 };
      landed.set(settlement.id, result);
      return result;
    },
  } as unknown as CreditLedger;
  return { ledger, landed, state };
}

function settlement(id: string): Settlement {
  return {
    id,
    holdId: `hold_${id}`,
    accountId: 'account',
    cost: 42,
    reason: 'messages model',
    requestId: `request_${id}`,
    createdAt: 1,
    record: {
      requestId: `request_${id}`,
      accountId: 'account',
      apiKeyId: 'key',
      surface: 'messages',
      model: 'model',
      deployment: 'provider/model',
      inputTokens: 1,
      inputCacheReadTokens: 0,
      inputCacheWrite5mTokens: 0,
      inputCacheWrite1hTokens: 0,
      outputTokens: 2,
      reasoningTokens: 0,
      latencyMs: 3,
      firstTokenMs: null,
      outcome: 'ok',
      status: 200,
      createdAt: 1,
    },
  };
}

describe('SettlementOutbox (docs/decisions/0017)', () => {
  let directory: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), 'switchyard-outbox-'));
  });
  afterEach(async () => rm(directory, { recursive: true, force: true }));

  it('keeps a settlement the store refuses on disk, without failing the caller, until it lands', async () => {
    const { ledger, landed, state } = flakyLedger();
    const waiting: number[] = [];
    const outbox = new SettlementOutbox({
      ledger,
      spool: new FileSettlementSpool(directory),
      retryMs: 60_000,
      onWaiting: (count) => waiting.push(count),
    });
    expect(await outbox.submit(settlement('a'))).toBeUndefined();
    expect(outbox.waiting).toBe(1);
    expect(await readdir(directory)).toEqual(['a.settlement.json']);

    await outbox.flush();
    expect(outbox.waiting).toBe(1);
    state.down = false;
    await outbox.flush();
    outbox.close();
    expect(landed.get('a')).toEqual({ charged: 42, shortfall: 0 });
    expect(outbox.waiting).toBe(0);
    expect(await readdir(directory)).toEqual([]);
    expect(waiting.at(-1)).toBe(0);
  });

  it('replays what a previous run left on disk', async () => {
    const first = flakyLedger();
    const crashed = new SettlementOutbox({
      ledger: first.ledger,
      spool: new FileSettlementSpool(directory),
      retryMs: 60_000,
    });
    await crashed.submit(settlement('b'));
    crashed.close();

    const next = flakyLedger();
    next.state.down = false;
    const restarted = new SettlementOutbox({
      ledger: next.ledger,
      spool: new FileSettlementSpool(directory),
      retryMs: 60_000,
    });
    await restarted.replay();
    restarted.close();
    expect([...next.landed.keys()]).toEqual(['b']);
    expect(await readdir(directory)).toEqual([]);
  });

  it('answers what was charged when the store takes it at once', async () => {
    const { ledger, state } = flakyLedger();
    state.down = false;
    const outbox = new SettlementOutbox({
      ledger,
      spool: new FileSettlementSpool(directory),
      retryMs: 60_000,
    });
    expect(await outbox.submit(settlement('c'))).toEqual({ charged: 42, shortfall: 0 });
    expect(await readdir(directory)).toEqual([]);
  });

  it('lands, on its next flush, what another process sharing the spool kept and never landed', async () => {
    const { ledger, landed, state } = flakyLedger();
    const spool = new FileSettlementSpool(directory);
    const gone = new SettlementOutbox({ ledger, spool, retryMs: 60_000 });
    await gone.submit(settlement('d'));
    gone.close();

    const survivor = new SettlementOutbox({ ledger, spool, retryMs: 60_000 });
    state.down = false;
    // The survivor kept nothing itself: only the spool tells it of the settlement.
    expect(survivor.waiting).toBe(0);
    await survivor.flush();
    survivor.close();
    expect([...landed.keys()]).toEqual(['d']);
    expect(await spool.load(() => {})).toEqual([]);
  });
});
