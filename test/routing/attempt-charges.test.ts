import { beforeEach, describe, expect, it } from 'vitest';
import { settledUsageRecord } from '../support/test-gateway.ts';
import { useTestBed } from '../support/use-test-bed.ts';
import { routedModel, startRoutingBed } from './routing-test-bed.ts';

const usage = { input: 2_000, output: 300 };
/** testModel's prices, 3 and 15 per million tokens: 2 000 × 3 + 300 × 15 micro-credits. */
const charge = 10_500;
const credits = 1_000_000;

/**
 * Retries cost the client nothing: a request is charged once, for the attempt that answered,
 * and a request whose every attempt failed is not charged at all.
 */
describe('the charge of a request that needed several attempts', () => {
  const bed = useTestBed(() =>
    startRoutingBed({
      providers: { main: 3 },
      models: [routedModel('pooled', [{ provider: 'main', upstreamModel: 'pooled-upstream' }])],
      routing: { backoffMs: 0 },
    }),
  );
  beforeEach(() => {
    bed.fake.reset();
    bed.gateway.router.forget();
  });

  async function usageCharges(accountId: string): Promise<number[]> {
    const entries = await bed.gateway.store.ledger.listEntries(accountId, 10);
    return entries.filter((entry) => entry.kind === 'usage').map((entry) => entry.amount);
  }

  for (const stream of [false, true]) {
    it(`charges once for the third attempt's answer (${stream ? 'stream' : 'JSON'})`, async () => {
      const { token, accountId } = await bed.gateway.createToken({ credits });
      const [failing, limited, answering] = bed.keys.main as string[];
      bed.fake.behaveForKey(failing as string, { status: 502 });
      bed.fake.behaveForKey(limited as string, { status: 429, headers: { 'retry-after': '5' } });
      bed.fake.enqueue({ output: [{ text: 'third time lucky' }], usage });

      const response = await bed.send('pooled', {
        token,
        body: {
          model: 'pooled',
          max_tokens: 1_000,
          stream,
          messages: [{ role: 'user', content: 'Try until it works.' }],
        },
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-switchyard-deployment']).toBe('main/pooled-upstream; attempts=3');
      expect(bed.callsTo(answering as string)).toBe(1);

      const record = await settledUsageRecord(bed.gateway, accountId);
      expect(record).toMatchObject({
        model: 'pooled',
        deployment: 'main/pooled-upstream',
        inputTokens: usage.input,
        outputTokens: usage.output,
        cost: charge,
        outcome: 'ok',
      });
      expect(await usageCharges(accountId)).toEqual([-charge]);
      const balance = await bed.gateway.store.ledger.getBalance(accountId);
      expect(balance).toMatchObject({ balance: credits - charge, held: 0 });
    });
  }

  it('charges nothing when every attempt failed', async () => {
    const { token, accountId } = await bed.gateway.createToken({ credits });
    for (const key of bed.keys.main as string[]) bed.fake.behaveForKey(key, { status: 503 });
    const response = await bed.send('pooled', { token });
    expect(response.statusCode).toBeGreaterThanOrEqual(500);
    expect(bed.fake.requests).toHaveLength(3);

    const record = await settledUsageRecord(bed.gateway, accountId);
    expect(record).toMatchObject({ deployment: null, cost: 0, outcome: 'upstream_error' });
    expect((await usageCharges(accountId)).filter((amount) => amount !== 0)).toEqual([]);
    const balance = await bed.gateway.store.ledger.getBalance(accountId);
    expect(balance).toMatchObject({ balance: credits, held: 0 });
  });
});
