import { describe, expect, it } from 'vitest';
import { parseTraceparent } from './parse-traceparent.ts';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

describe('parseTraceparent', () => {
  it('reads the trace, the parent span and the sampled flag', () => {
    expect(parseTraceparent(`00-${traceId}-${spanId}-01`)).toEqual({
      traceId,
      spanId,
      traceFlags: 1,
      isRemote: true,
    });
    expect(parseTraceparent(`00-${traceId}-${spanId}-00`)?.traceFlags).toBe(0);
  });

  it('accepts a later version with more fields, keeping only the sampled flag', () => {
    expect(parseTraceparent(`01-${traceId}-${spanId}-03-future`)).toMatchObject({
      traceId,
      traceFlags: 1,
    });
  });

  it('refuses what the W3C format calls invalid', () => {
    for (const header of [
      '',
      `ff-${traceId}-${spanId}-01`,
      `00-${traceId}-${spanId}-01-extra`,
      `00-${'0'.repeat(32)}-${spanId}-01`,
      `00-${traceId}-${'0'.repeat(16)}-01`,
      `00-${traceId.toUpperCase()}-${spanId}-01`,
      `00-${traceId.slice(1)}-${spanId}-01`,
    ])
      expect(parseTraceparent(header), header).toBeUndefined();
  });
});
