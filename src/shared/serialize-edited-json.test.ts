import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeEditedJson } from './serialize-edited-json.ts';

/** The edit as text: decoding as UTF-8 also checks that every byte was written as UTF-8. */
const serializeEditedJson = (text: string, original: unknown, next: unknown): string =>
  new TextDecoder('utf-8', { fatal: true }).decode(encodeEditedJson(text, original, next));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A copy-on-write edit at a random path, the way the fast path edits a body. */
function editAt(value: Json, path: number[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const [step, ...rest] = path as [number, ...number[]];
  if (Array.isArray(value)) {
    if (value.length === 0) return [replacement];
    const index = step % (value.length + 1);
    const copy = [...value];
    if (index === value.length) copy.push(replacement);
    else copy[index] = editAt(value[index] as Json, rest, replacement);
    return copy;
  }
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value);
    const index = step % (keys.length + 2);
    if (index === keys.length) return { ...value, added_by_edit: replacement };
    if (index === keys.length + 1 && keys.length > 0) {
      const { [keys[0] as string]: _removed, ...rest } = value;
      return rest;
    }
    const key = keys[index] as string;
    return { ...value, [key]: editAt(value[key] as Json, rest, replacement) };
  }
  return replacement;
}

describe('encodeEditedJson', () => {
  it('writes what JSON.stringify would mean, for any edit of any body, in any spelling', () => {
    fc.assert(
      fc.property(
        fc.jsonValue({ stringUnit: 'grapheme' }) as fc.Arbitrary<Json>,
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.jsonValue({ stringUnit: 'grapheme' }) as fc.Arbitrary<Json>,
        fc.boolean(),
        (value, path, replacement, pretty) => {
          const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value);
          const original = JSON.parse(text) as Json;
          const next = editAt(original, path, replacement);
          const expected = JSON.parse(JSON.stringify(next)) as unknown;
          expect(JSON.parse(serializeEditedJson(text, original, next))).toEqual(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('writes a body over 8 KiB piece by piece to the same meaning, UTF-8 included', () => {
    // Past 8 KiB the pieces are written one by one into the output instead of joined first.
    const padding = 'é'.repeat(3_000) + 'x'.repeat(6_000);
    fc.assert(
      fc.property(
        fc.jsonValue({ stringUnit: 'grapheme' }) as fc.Arbitrary<Json>,
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.jsonValue({ stringUnit: 'grapheme' }) as fc.Arbitrary<Json>,
        (value, path, replacement) => {
          const text = JSON.stringify({ padding, value });
          expect(text.length).toBeGreaterThan(8_192);
          const original = JSON.parse(text) as { padding: string; value: Json };
          const next = { ...original, value: editAt(original.value, path, replacement) };
          const expected = JSON.parse(JSON.stringify(next)) as unknown;
          expect(JSON.parse(serializeEditedJson(text, original, next))).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps the client spelling of every part it did not touch', () => {
    const text =
      '{ "model" : "public",\n "messages": [{"role":"user","content":"caf\\u00e9 \\"q\\" \\\\"}],' +
      ' "n": 1.50, "big": 1e3 }';
    const original = JSON.parse(text) as Record<string, unknown>;
    const written = serializeEditedJson(text, original, { ...original, model: 'upstream' });
    // Members copied one after another keep the whitespace between them too.
    expect(written).toBe(
      '{"model":"upstream","messages": [{"role":"user","content":"caf\\u00e9 \\"q\\" \\\\"}],' +
        ' "n": 1.50, "big": 1e3}',
    );
  });

  it('rewrites only the containers on the way to an edit', () => {
    const text = '{"a":[{"x":1},{"y":[1, 2]}],"b":{"c":"d"}}';
    const original = JSON.parse(text) as { a: Array<Record<string, unknown>>; b: unknown };
    const a = [...original.a];
    a[1] = { ...a[1], cache_control: { type: 'ephemeral' } };
    expect(serializeEditedJson(text, original, { ...original, a })).toBe(
      '{"a":[{"x":1},{"y":[1, 2],"cache_control":{"type":"ephemeral"}}],"b":{"c":"d"}}',
    );
  });

  it('reads a repeated key as JSON.parse does, by its last value', () => {
    const text = '{"k":"first","k":"second","m":"x"}';
    const original = JSON.parse(text) as Record<string, unknown>;
    expect(serializeEditedJson(text, original, { ...original, m: 'y' })).toBe(
      '{"k":"second","m":"y"}',
    );
  });

  it('leaves out undefined members and writes undefined array elements as null', () => {
    const text = '{"a":1,"b":[1,2]}';
    const original = JSON.parse(text) as Record<string, unknown>;
    expect(
      serializeEditedJson(text, original, { ...original, a: undefined, b: [1, undefined] }),
    ).toBe('{"b":[1,null]}');
  });
});
