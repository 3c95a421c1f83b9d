import { describe, expect, it } from 'vitest';

import { parseUntrustedJson } from './parse-json.ts';

describe('parseUntrustedJson', () => {
  it('refuses a __proto__ key, plain or spelled with escapes, at any depth', () => {
    for (const text of [
      '{"__proto__":{"admin":true}}',
      '{"a":[{"b":1},{"__proto__" : {}}]}',
      '{"\\u005f_proto__":{}}',
      '{"_\\u005fpr\\u006fto__":{}}',
      '\ufeff{"__proto__":{}}',
      '{"a":1,"__PROTO__":2,"\\u005F\\u005Fproto\\u005F\\u005F"\n:{}}',
    ]) {
      expect(() => parseUntrustedJson(text), text).toThrow(SyntaxError);
    }
  });

  it('refuses a constructor key that carries a prototype, plain or escaped', () => {
    expect(() => parseUntrustedJson('{"constructor":{"prototype":{"x":1}}}')).toThrow(SyntaxError);
    expect(() => parseUntrustedJson('{"a":{"\\u0063onstructor":{"prototype":{}}}}')).toThrow(
      SyntaxError,
    );
  });

  it('parses everything else as JSON.parse does, escapes and byte-order mark included', () => {
    for (const text of [
      '{"text":"the words __proto__ and constructor in a string"}',
      '{"constructor":"a plain value"}',
      '{"caf\\u00e9":"\\u00e9t\\u00e9","n":[1,2.5,null,true]}',
      '"just a string"',
      '42',
    ]) {
      expect(parseUntrustedJson(text)).toEqual(JSON.parse(text));
    }
    expect(parseUntrustedJson('\ufeff{"a":1}')).toEqual({ a: 1 });
  });

  it('keeps the parser position in a syntax error', () => {
    expect(() => parseUntrustedJson('{"a":1,}')).toThrow(/position 7/);
  });
});
