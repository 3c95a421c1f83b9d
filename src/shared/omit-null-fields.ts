/**
 * The object without its `null`-valued keys, one level deep. The OpenAI dialects say "not set"
 * with `null`, and the official SDKs' helpers add such keys to what they return
 * (`parsed_arguments: null`, `parsed: null`); a decoder reads the rest exactly as sent. Only one
 * level: a `null` inside a JSON schema or tool arguments is a value, not an absence.
 */
export function omitNullFields(object: Record<string, unknown>): Record<string, unknown> {
  if (!Object.values(object).includes(null)) return object;
  return Object.fromEntries(Object.entries(object).filter(([, value]) => value !== null));
}
