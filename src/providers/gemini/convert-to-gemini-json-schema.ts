import { isJsonObject } from '../../wire/messages/messages-json-text.ts';

/**
 * The JSON Schema keywords Gemini honours in `parametersJsonSchema` and `responseJsonSchema`
 * (the Gemini API reference, GenerationConfig.responseJsonSchema), plus its own
 * `propertyOrdering`. It accepts other keywords and ignores them, so a constraint outside this
 * list would silently stop constraining the model: the codec refuses it instead.
 */
const honoured = new Set([
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'properties',
  'additionalProperties',
  'required',
  'propertyOrdering',
]);

/** Keywords that only annotate: ignoring them changes no valid value (JSON Schema 2020-12 §9). */
const annotations = new Set(['default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

const isScalarEnumValue = (value: unknown) =>
  typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

export interface GeminiSchemaResult {
  schema: Record<string, unknown>;
  /** Where in the schema (`properties.city.pattern`) a keyword Gemini ignores was found. */
  unsupported: string[];
}

/**
 * A client's JSON Schema as Gemini takes it. `$`-keywords (`$defs`, `$ref`, `$schema`…) and
 * annotations pass as they are; `const` of a string or number becomes the one-value `enum` it
 * means; every other keyword Gemini would ignore is reported by its path in the schema.
 */
export function convertToGeminiJsonSchema(schema: Record<string, unknown>): GeminiSchemaResult {
  const unsupported: string[] = [];
  const convert = (node: unknown, path: string): unknown => {
    if (typeof node === 'boolean') return node;
    if (!isJsonObject(node)) {
      unsupported.push(path === '' ? '(root)' : path);
      return node;
    }
    const at = (key: string) => (path === '' ? key : `${path}.${key}`);
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$defs' && isJsonObject(value)) {
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [name, convert(sub, `${at(key)}.${name}`)]),
        );
      } else if (key.startsWith('$') || annotations.has(key)) {
        out[key] = value;
      } else if (key === 'const' && isScalarEnumValue(value) && node.enum === undefined) {
        out.enum = [value];
      } else if (!honoured.has(key)) {
        unsupported.push(at(key));
      } else if (key === 'enum') {
        if (!Array.isArray(value) || !value.every(isScalarEnumValue)) unsupported.push(at(key));
        out[key] = value;
      } else if (key === 'properties' && isJsonObject(value)) {
        out[key] = Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [name, convert(sub, `${at(key)}.${name}`)]),
        );
      } else if (
        (key === 'anyOf' || key === 'oneOf' || key === 'prefixItems') &&
        Array.isArray(value)
      ) {
        out[key] = value.map((sub, index) => convert(sub, `${at(key)}[${index}]`));
      } else if (key === 'items' || (key === 'additionalProperties' && isJsonObject(value))) {
        out[key] = convert(value, at(key));
      } else {
        out[key] = value;
      }
    }
    return out;
  };
  return { schema: convert(schema, '') as Record<string, unknown>, unsupported };
}
