import { describe, expect, it } from 'vitest';
import { convertToGeminiJsonSchema } from './convert-to-gemini-json-schema.ts';

describe('convertToGeminiJsonSchema', () => {
  it('passes the keywords Gemini honours, $-keywords and annotations as they are', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: {
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, maxItems: 3 },
        point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] },
        choice: { anyOf: [{ $ref: '#/$defs/thing' }, { type: 'null' }] },
        extra: { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } },
      },
      required: ['tags'],
      $defs: { thing: { type: 'string', description: 'a thing', default: 'x' } },
      additionalProperties: false,
    };
    expect(convertToGeminiJsonSchema(schema)).toEqual({ schema, unsupported: [] });
  });

  it('writes a const as its one-value enum', () => {
    expect(
      convertToGeminiJsonSchema({ type: 'object', properties: { kind: { const: 'x' } } }),
    ).toEqual({
      schema: { type: 'object', properties: { kind: { enum: ['x'] } } },
      unsupported: [],
    });
  });

  it('reports every constraint Gemini would ignore, by its place in the schema', () => {
    const { unsupported } = convertToGeminiJsonSchema({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, pattern: '^[a-z]+$' },
        flag: { enum: [true, false] },
        nested: {
          type: 'array',
          items: { type: 'object', patternProperties: {} },
          uniqueItems: true,
        },
      },
      $defs: { other: { allOf: [] } },
      not: {},
    });
    expect(unsupported).toEqual([
      'properties.name.minLength',
      'properties.name.pattern',
      'properties.flag.enum',
      'properties.nested.items.patternProperties',
      'properties.nested.uniqueItems',
      '$defs.other.allOf',
      'not',
    ]);
  });
});
