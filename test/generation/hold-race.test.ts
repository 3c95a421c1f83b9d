import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { Principal } from '../../src/auth/authenticator.ts';
import type { CreditLedger, Hold } from '../../src/billing/credit-ledger.ts';
import { ModelCatalog, type CatalogModel } from '../../src/catalog/model-catalog.ts';
import { ApiError } from '../../src/canonical/generation-error.ts';
import { parseConfig } from '../../src/config/load-config.ts';
import { BillingSession, type BillingDependencies } from '../../src/generation/billing-session.ts';
import { OperatorService } from '../../src/operator/operator-service.ts';
import type { Store } from '../../src/store/store.ts';
import { openTemporarySqliteStore } from '../support/isolated-test-stores.ts';
import { testModel } from '../support/test-gateway.ts';

/**
 * docs/decisions/0100: the balance read and the hold are two steps, so another request may take
 * the credits in between; the hold is tried again with the balance as it is then.
 */
describe('a hold that loses a race for the balance (docs/decisions/0100)', () => {
  let store: Store;
  let model: CatalogModel;
  let accountId: string;
  beforeEach(async () => {
    store = await openTemporarySqliteStore();
    const config = parseConfig({
      providers: { chat: { kind: 'openai-chat', baseUrl: 'http://127.0.0.1:9' } },
      models: [testModel('m', 'chat', { pricing: { input: 3, output: 15 } })],
    });
    model = new ModelCatalog(config).get('m') as CatalogModel;
  });
  afterEach(async () => store.close());

  /** The ledger, with another request's hold of `amount` placed just before each of ours. */
  function racedLedger(amounts: number[], accountId: string): CreditLedger {
    const ledger = store.ledger;
    return Object.assign(Object.create(ledger) as CreditLedger, {
      async placeHold(hold: Hold) {
        const amount = amounts.shift();
        if (amount !== undefined) {
          await ledger.placeHold({
            ...hold,
            id: `${hold.id}-other-${amounts.length}`,
            amount,
            accountId,
          });
        }
        return ledger.placeHold(hold);
      },
      getBalance: (id: string) => ledger.getBalance(id),
    });
  }

  async function open(credits: number, others: number[]) {
    const operator = new OperatorService(store);
    const account = await operator.createAccount({ name: 'race', isAdmin: false });
    await operator.changeCredits({
      accountId: account.id,
      amount: credits,
      reason: 'race',
      kind: 'grant',
    });
    accountId = account.id;
    const dependencies: BillingDependencies = {
      ledger: racedLedger(others, account.id),
      usage: store.usage,
      settlements: undefined as never,
      // No limits are configured: the limiter is never asked.
      rateLimiter: undefined as never,
      limits: {},
      holdTtlMs: 60_000,
      now: () => Date.now(),
    };
    return BillingSession.open(dependencies, {
      requestId: 'request',
      principal: { account: { id: account.id }, apiKey: { id: 'key' } } as Principal,
      model,
      surface: 'chat',
      promptTokens: 10,
      maxOutputTokens: 1_000,
      minimumOutputTokens: 100,
    });
  }

  it('holds what the balance affords once another request took part of it', async () => {
    // 10 × 3 + 1 000 × 15 µ would fit; another request takes 10 000 µ first.
    const session = await open(15_030, [10_000]);
    // (15 030 − 10 000 − 30) / 15 = 333 output tokens.
    expect(session.outputLimit).toBe(333);
  });

  it('answers credits_reserved when requests in flight leave less than the least limit', async () => {
    const refused = await open(15_030, [14_000]).then(
      () => undefined,
      (error: unknown) => error as ApiError,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ code: 'credits_reserved', retryAfter: 1 });
  });

  it('gives up after three tries that each lose the race', async () => {
    const refused = await open(100_000, [90_000, 5_000, 4_000]).then(
      () => undefined,
      (error: unknown) => error as ApiError,
    );
    expect(refused).toMatchObject({ code: 'credits_reserved' });
    // Nothing of ours stays held: only the three other requests' holds.
    expect(await store.ledger.getBalance(accountId)).toMatchObject({ held: 99_000 });
  });
});
