import { createHash } from 'node:crypto';

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

  it('hashes the RFC 8785 canonical text: members by UTF-16 code units, ECMAScript numbers', () => {
    // RFC 8785 §3.2.3's sorting example, and numbers and strings in their canonical spelling.
    const body = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
      n: JSON.parse('[1E30, 4.50, 2e-3, 0.000000000000000000000000001, -0]') as unknown,
      s: '\u20ac$\u000f\nA\'B"\\/',
    };
    const canonical =
      '{"body":{"\\r":"Carriage Return","1":"One","n":[1e+30,4.5,0.002,1e-27,0],' +
      '"s":"\u20ac$\\u000f\\nA\'B\\"\\\\/","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"},' +
      '"headers":{"ai-model-id":"judge"},"operation":"evaluation"}';
    expect(fingerprintRequest({ ...base, body })).toBe(
      createHash('sha256').update(canonical, 'utf8').digest('hex'),
    );
  });

  it('fingerprints a lone surrogate, which JSON.parse lets through, and tells two apart', () => {
    const high = fingerprintRequest({ ...base, body: JSON.parse('{"t":"a\\ud800"}') as unknown });
    const low = fingerprintRequest({ ...base, body: JSON.parse('{"t":"a\\udc00"}') as unknown });
    expect(high).toMatch(/^[0-9a-f]{64}$/);
    expect(high).not.toBe(low);
  });
});
