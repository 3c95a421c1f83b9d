import pg from 'pg';
import type { CustomTypesConfig } from 'pg';

/**
 * int8 holds micro-credits and epoch milliseconds. node-postgres returns it as a string by
 * default; the ports speak JS numbers, which are exact only up to Number.MAX_SAFE_INTEGER, so a
 * larger value fails the query rather than being silently rounded.
 */
export function parsePostgresInt8(text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`PostgreSQL int8 value ${text} is beyond Number.MAX_SAFE_INTEGER`);
  }
  return value;
}

/** Per pool rather than `pg.types.setTypeParser`, which would change every pool in the process. */
export const postgresStoreTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 && format !== 'binary'
      ? parsePostgresInt8
      : pg.types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};
