import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { Principal } from '../../src/auth/authenticator.ts';
import type { ApiError } from '../../src/canonical/generation-error.ts';
import { holdPrice, type PricedCallDependencies } from '../../src/generation/priced-call.ts';
import { startTestGateway, testModel, type TestGateway } from '../support/test-gateway.ts';

/**
 * docs/decisions/0101: a 402 says whether the balance cannot pay (`insufficient_credits`) or is
 * reserved by requests in flight (`credits_reserved`, with `retry-after`), on the priced routes
 * too (test/http/openapi-document.test.ts checks that the contract lists both).
 */
describe('402 answers of paid routes (docs/decisions/0101)', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({
      providers: { up: { kind: 'anthropic', baseUrl: 'http://127.0.0.1:9' } },
      models: [testModel('m', 'up')],
    });
  });
  afterAll(async () => gateway.close());

  it('holdPrice tells credits reserved by holds in flight from a balance that cannot pay', async () => {
    const { accountId, apiKeyId } = await gateway.createToken({ credits: 1_000 });
    const principal = { account: { id: accountId }, apiKey: { id: apiKeyId } } as Principal;
    const dependencies: PricedCallDependencies = {
      ledger: gateway.store.ledger,
      settlements: undefined as never,
      rateLimiter: undefined as never,
      limits: {},
      holdTtlMs: 60_000,
      now: () => Date.now(),
    };
    const inFlight = await holdPrice(dependencies, { principal, amount: 800, what: 'a search' });
    const refusal = (amount: number) =>
      holdPrice(dependencies, { principal, amount, what: 'this search' }).then(
        () => undefined,
        (error: unknown) => error as ApiError,
      );
    const reserved = await refusal(500);
    expect(reserved).toMatchObject({ code: 'credits_reserved', status: 402, retryAfter: 1 });
    const cannotPay = await refusal(1_001);
    expect(cannotPay).toMatchObject({ code: 'insufficient_credits', status: 402 });
    expect(cannotPay?.retryAfter).toBeUndefined();
    expect(inFlight).toBeDefined();
    await gateway.store.ledger.releaseHold(inFlight as string);
    expect(
      await holdPrice(dependencies, { principal, amount: 500, what: 'a search' }),
    ).toBeDefined();
  });
});
