import { beforeEach, describe, expect, it } from 'vitest';
import { settledUsageRecord } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

/** The fallback's prices, unlike the primary's (3 and 15 per million): 2 and 10 micro-credits a token. */
const backupPricing = { input: 2, output: 10 };
const usage = { input: 1_000, output: 100 };
/** 1 000 × 2 + 100 × 10 micro-credits. */
const backupCharge = 3_000;

/**
 * A model's `fallbacks` answer when every target of the model fails, or at once when its prompt is
 * too long for it; the answer, its usage record and its charge are the fallback's.
 */
describe('model fallbacks', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { pa: 2, pb: 1 },
      models: [
        routedModel('primary', [{ provider: 'pa', upstreamModel: 'primary-upstream' }], {
          fallbacks: ['backup'],
        }),
        routedModel('backup', [{ provider: 'pb', upstreamModel: 'backup-upstream' }], {
          pricing: backupPricing,
        }),
      ],
      routing: { backoffMs: 0 },
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  const primaryKeys = () => bed.keys.pa as string[];
  const backupKey = () => bed.keys.pb?.[0] as string;

  it('answers from the fallback when every target fails, priced and recorded as it', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits: 1_000_000 });
    for (const key of primaryKeys()) bed.fake.behaveForKey(key, { status: 500 });
    bed.fake.enqueue({ output: [{ text: 'from the backup' }], usage });

    const response = await bed.send('primary', { token });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ model: string }>().model).toBe('backup');
    expect(response.headers['x-switchyard-model']).toBe('backup');
    expect(response.headers['x-switchyard-deployment']).toBe('pb/backup-upstream; attempts=3');
    for (const key of primaryKeys()) expect(bed.callsTo(key)).toBe(1);

    const record = await settledUsageRecord(bed.gateway, accountId);
    expect(record).toMatchObject({
      model: 'backup',
      deployment: 'pb/backup-upstream',
      inputTokens: usage.input,
      outputTokens: usage.output,
      cost: backupCharge,
      outcome: 'ok',
    });
    // Charged once, the fallback's price, nothing for the failed attempts.
    const entries = await bed.gateway.store.ledger.listEntries(accountId, 10);
    const charges = entries.filter((entry) => entry.kind === 'usage');
    expect(charges.map((entry) => entry.amount)).toEqual([-backupCharge]);
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(
      1_000_000 - backupCharge,
    );
  });

  it('goes straight to the fallback when the prompt is too long for the model', async () => {
    for (const key of primaryKeys()) {
      bed.fake.behaveForKey(key, {
        status: 400,
        errorType: 'invalid_request_error',
        errorMessage: 'prompt is too long: 250000 tokens > 200000 maximum',
      });
    }
    const response = await bed.send('primary');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-switchyard-model']).toBe('backup');
    expect(response.headers['x-switchyard-deployment']).toBe('pb/backup-upstream; attempts=2');
    // The model's other key would have said the same: not tried.
    const primaryCalls = primaryKeys().map((key) => bed.callsTo(key));
    expect(primaryCalls.reduce((sum, calls) => sum + calls, 0)).toBe(1);
    expect(bed.callsTo(backupKey())).toBe(1);
  });

  it('does not go to a fallback on a client error of the request itself', async () => {
    for (const key of primaryKeys()) {
      bed.fake.behaveForKey(key, {
        status: 400,
        errorType: 'invalid_request_error',
        errorMessage: 'messages: roles must alternate',
      });
    }
    const response = await bed.send('primary');
    expect(response.statusCode).toBe(400);
    expect(bed.fake.requests).toHaveLength(1);
  });

  it('never tries a fallback the token may not use', async () => {
    const { token, accountId } = await bed.gateway.createToken({
      credits: 1_000_000,
      allowedModels: ['primary'],
    });
    for (const key of primaryKeys()) bed.fake.behaveForKey(key, { status: 500 });
    const response = await bed.send('primary', { token });
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(bed.callsTo(backupKey())).toBe(0);
    for (const key of primaryKeys()) expect(bed.callsTo(key)).toBe(1);
    const record = await settledUsageRecord(bed.gateway, accountId);
    expect(record).toMatchObject({ model: 'primary', deployment: null, cost: 0 });
    expect((await bed.gateway.store.ledger.getBalance(accountId)).balance).toBe(1_000_000);
  });
});
