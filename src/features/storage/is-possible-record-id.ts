/**
 * Ids the gateway hands out (`asset_…`, `imggen_…`) are ASCII letters, digits, `_` and `-`. Any
 * other text cannot name a record, so it is unknown without asking the store: PostgreSQL refuses
 * a NUL byte in text outright, and that refusal must read as "no such id", not as a fault.
 */
export function isPossibleRecordId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,200}$/.test(id);
}
