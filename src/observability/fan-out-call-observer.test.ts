import { describe, expect, it } from 'vitest';

import type { ObservedCall } from './call-observer.ts';
import { fanOutCallObservers } from './fan-out-call-observer.ts';

const call = { requestId: 'req_1', attempts: [] } as unknown as ObservedCall;

describe('fanOutCallObservers', () => {
  it('tells every observer, and a throwing one neither stops the others nor the caller', () => {
    const told: string[] = [];
    const errors: unknown[] = [];
    const fault = new Error('observer broke');
    const observer = fanOutCallObservers(
      [
        { observe: (seen) => told.push(`first ${seen.requestId}`) },
        {
          observe: () => {
            throw fault;
          },
        },
        { observe: (seen) => told.push(`third ${seen.requestId}`) },
      ],
      (error) => errors.push(error),
    );
    expect(() => observer.observe(call)).not.toThrow();
    expect(told).toEqual(['first req_1', 'third req_1']);
    expect(errors).toEqual([fault]);
  });
});
