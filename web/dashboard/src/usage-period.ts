/** A usage period in whole UTC days, `toDay` included, and the step of its charts. */
export interface UsagePeriod {
  fromDay: string;
  toDay: string;
  step: 'hour' | 'day';
}

const dayMs = 86_400_000;

export function utcDay(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** The last `days` days up to today (UTC); one day is charted by the hour. */
export function lastDays(days: number, now = Date.now()): UsagePeriod {
  return {
    fromDay: utcDay(now - (days - 1) * dayMs),
    toDay: utcDay(now),
    step: days === 1 ? 'hour' : 'day',
  };
}

/** The query's `from` (inclusive) and `to` (exclusive), as the usage routes take them. */
export function periodBounds(period: UsagePeriod): { from: string; to: string } {
  return {
    from: `${period.fromDay}T00:00:00.000Z`,
    to: new Date(Date.parse(`${period.toDay}T00:00:00.000Z`) + dayMs).toISOString(),
  };
}

/** Every step's start in the period, in epoch seconds, so empty hours and days chart as 0. */
export function periodSteps(period: UsagePeriod): number[] {
  const { from, to } = periodBounds(period);
  const stepMs = period.step === 'hour' ? 3_600_000 : dayMs;
  const steps: number[] = [];
  for (let time = Date.parse(from); time < Date.parse(to) && steps.length < 2000; time += stepMs) {
    steps.push(time / 1000);
  }
  return steps;
}
