import { describe, expect, it } from 'vitest';
import { creditsOfMicro, showCredits } from '../../web/dashboard/src/format-values.ts';
import { lastDays, periodBounds, periodSteps } from '../../web/dashboard/src/usage-period.ts';

describe('what the dashboard shows', () => {
  it('shows credits exactly, trimming only zeros past the cents', () => {
    expect(showCredits('25.000000')).toBe('25.00');
    expect(showCredits('0.000105')).toBe('0.000105');
    expect(showCredits('12.500000')).toBe('12.50');
    expect(showCredits('-3.120000')).toBe('-3.12');
  });

  it('turns micro-credits into the exact decimal string', () => {
    expect(creditsOfMicro(12_500_000)).toBe('12.500000');
    expect(creditsOfMicro(1)).toBe('0.000001');
    expect(creditsOfMicro(-2_000_001)).toBe('-2.000001');
    expect(creditsOfMicro(Number.MAX_SAFE_INTEGER)).toBe('9007199254.740991');
  });

  it('asks for whole UTC days, the last one included', () => {
    const now = Date.parse('2026-03-10T15:00:00Z');
    const week = lastDays(7, now);
    expect(week).toEqual({ fromDay: '2026-03-04', toDay: '2026-03-10', step: 'day' });
    expect(periodBounds(week)).toEqual({
      from: '2026-03-04T00:00:00.000Z',
      to: '2026-03-11T00:00:00.000Z',
    });
    expect(periodSteps(week)).toHaveLength(7);
  });

  it('charts one day by the hour', () => {
    const today = lastDays(1, Date.parse('2026-03-10T15:00:00Z'));
    expect(today.step).toBe('hour');
    const steps = periodSteps(today);
    expect(steps).toHaveLength(24);
    expect(steps[0]).toBe(Date.parse('2026-03-10T00:00:00Z') / 1000);
  });
});
