import { describe, expect, it } from 'vitest';
import { settleWithin } from './settle-within.ts';

describe('settleWithin', () => {
  it('gives the value of a promise that settles in time', async () => {
    await expect(settleWithin(Promise.resolve(7), 50)).resolves.toBe(7);
  });

  it('gives undefined for a rejection or a promise still pending at the bound', async () => {
    await expect(settleWithin(Promise.reject(new Error('down')), 50)).resolves.toBeUndefined();
    const started = Date.now();
    await expect(settleWithin(new Promise<number>(() => {}), 30)).resolves.toBeUndefined();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
