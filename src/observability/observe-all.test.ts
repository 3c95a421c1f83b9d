import { describe, expect, it } from 'vitest';
import type { CallObserver, ObservedCall } from './call-observer.ts';
import { observeAll } from './observe-all.ts';

const call = { requestId: 'req_1' } as ObservedCall;

function recording(seen: string[], name: string): CallObserver {
  return { observe: (observed) => void seen.push(`${name}:${observed.requestId}`) };
}

describe('observeAll', () => {
  it('is undefined when no observer is configured, and the observer itself when one is', () => {
    expect(observeAll()).toBeUndefined();
    expect(observeAll(undefined, undefined)).toBeUndefined();
    const only = recording([], 'only');
    expect(observeAll(undefined, only)).toBe(only);
  });

  it('tells every observer in order, past one that throws', () => {
    const seen: string[] = [];
    const failing: CallObserver = {
      observe() {
        throw new Error('exporter broke');
      },
    };
    const all = observeAll(recording(seen, 'a'), undefined, failing, recording(seen, 'b'));
    expect(() => all?.observe(call)).not.toThrow();
    expect(seen).toEqual(['a:req_1', 'b:req_1']);
  });
});
