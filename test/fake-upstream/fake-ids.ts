/**
 * Deterministic ids with each dialect's real prefixes (`msg_`, `toolu_`, `chatcmpl-`, `call_`,
 * `resp_`, `fc_`, `rs_`), numbered per fake server so recorded output is reproducible.
 */
export interface FakeIdSource {
  next(prefix: string): string;
}

export function createFakeIdSource(): FakeIdSource {
  let counter = 0;
  return {
    next(prefix) {
      counter += 1;
      return `${prefix}fake${String(counter).padStart(20, '0')}`;
    },
  };
}
