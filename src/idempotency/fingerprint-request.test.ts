import { describe, expect, it } from 'vitest';

import { fingerprintRequest } from './fingerprint-request.ts';

const base = {
  operation: 'evaluation',
  headers: { 'ai-model-id': 'judge' },
  body: { state: 'x', questions: { a: { type: 'boolean', instructions: 'ok?' } } },
};

describe('fingerprintRequest', () => {
  it('ignores member order and number spelling', () => {
    const reordered = {
      operation: 'evaluation',
      headers: { 'ai-model-id': 'judge' },
      body: JSON.parse('{"questions":{"a":{"instructions":"ok?","type":"boolean"}},"state":"x"}'),
    };
    expect(fingerprintRequest(reordered)).toBe(fingerprintRequest(base));
    expect(fingerprintRequest({ ...base, body: { n: 1.0 } })).toBe(
      fingerprintRequest({ ...base, body: { n: 1 } }),
    );
  });

  it('changes with any value, header or operation', () => {
    const reference = fingerprintRequest(base);
    expect(fingerprintRequest({ ...base, body: { ...base.body, state: 'y' } })).not.toBe(reference);
    expect(fingerprintRequest({ ...base, headers: { 'ai-model-id': 'other' } })).not.toBe(
      reference,
    );
    expect(fingerprintRequest({ ...base, operation: 'search' })).not.toBe(reference);
    expect(fingerprintRequest(base)).toMatch(/^[0-9a-f]{64}$/);
  });
});
