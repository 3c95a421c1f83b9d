import { describe, expect, it } from 'vitest';
import { formatResetDuration } from './render-rate-limit-headers.ts';

describe('formatResetDuration', () => {
  it('writes durations the way OpenAI’s reset headers do', () => {
    expect(formatResetDuration(0)).toBe('0s');
    expect(formatResetDuration(20)).toBe('20ms');
    expect(formatResetDuration(1000)).toBe('1s');
    expect(formatResetDuration(1500)).toBe('1.5s');
    expect(formatResetDuration(360_000)).toBe('6m0s');
    expect(formatResetDuration(90_250)).toBe('1m30.25s');
    expect(formatResetDuration(3_723_000)).toBe('1h2m3s');
  });
});
