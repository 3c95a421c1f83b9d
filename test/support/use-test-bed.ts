import { afterAll, beforeAll } from 'vitest';
import {
  startUpstreamTestBed,
  type UpstreamTestBed,
  type UpstreamTestBedOptions,
} from './test-gateway.ts';

/**
 * A test bed for the enclosing `describe`, started by `start` before its first test and closed
 * after its last, so a suite states only what its bed needs. The returned object is filled in by
 * the time any test or `beforeEach` runs; its methods must not rely on `this`.
 */
export function useTestBed<Bed extends { close(): Promise<void> }>(start: () => Promise<Bed>): Bed {
  const bed = {} as Bed;
  beforeAll(async () => {
    Object.assign(bed, await start());
  });
  afterAll(async () => {
    // A failed start leaves nothing to close.
    await (bed as Partial<Bed>).close?.();
  });
  return bed;
}

/** The shared upstream test bed (a fake upstream, a gateway on it, a client token) per suite. */
export function useUpstreamTestBed(options: UpstreamTestBedOptions): UpstreamTestBed {
  return useTestBed(() => startUpstreamTestBed(options));
}
