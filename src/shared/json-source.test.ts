import { describe, expect, it } from 'vitest';
import { encodeEdit, parseRequestJson, releaseSource } from './json-source.ts';

describe('parseRequestJson / encodeEdit', () => {
  it('reuses the text of a parsed request body, and stringifies anything else', () => {
    const body = parseRequestJson('{"model":"m", "keep":"a\\/b"}') as Record<string, unknown>;
    expect(encodeEdit({ ...body, model: 'u' }, body).toString()).toBe(
      '{"model":"u","keep":"a\\/b"}',
    );
    const unparsed = { model: 'm', keep: 'a/b' };
    expect(encodeEdit({ ...unparsed, model: 'u' }, unparsed).toString()).toBe(
      '{"model":"u","keep":"a/b"}',
    );
  });

  it('keeps the text where JSON, spreads, keys and copies of the body never see it', () => {
    const body = parseRequestJson('{"model":"m","n":1}') as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['model', 'n']);
    expect(JSON.stringify(body)).toBe('{"model":"m","n":1}');
    expect(Object.getOwnPropertySymbols({ ...body })).toEqual([]);
    expect(structuredClone(body)).toEqual({ model: 'm', n: 1 });
  });

  it('writes an edit with JSON.stringify once the text is released', () => {
    const body = parseRequestJson('{"model":"m", "keep":"a\\/b"}') as Record<string, unknown>;
    releaseSource(body);
    expect(encodeEdit({ ...body, model: 'u' }, body).toString()).toBe('{"model":"u","keep":"a/b"}');
    releaseSource(body);
    releaseSource(undefined);
    releaseSource('text');
  });

  it('writes non-ASCII text as UTF-8', () => {
    const body = parseRequestJson('{"model":"m","t":"café ☕"}') as Record<string, unknown>;
    const bytes = encodeEdit({ ...body, model: 'ü' }, body);
    expect(bytes.equals(Buffer.from('{"model":"ü","t":"café ☕"}', 'utf8'))).toBe(true);
  });
});
