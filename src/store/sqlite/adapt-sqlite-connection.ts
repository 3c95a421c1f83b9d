import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Adapts a better-sqlite3 connection for Kysely's SQLite driver in two ways:
 *
 * - Statements are reused. The driver prepares every query anew, and preparing costs several
 *   times more than running a point lookup that the request path (token lookup, hold) repeats.
 *   Reuse is safe because the driver runs one query at a time on its single connection. The
 *   bound keeps SQL that varies by more than its parameters from growing the map.
 * - Integers are read as BigInt and handed on as numbers only when exact, so a value beyond
 *   Number.MAX_SAFE_INTEGER fails the query instead of coming back rounded, as on PostgreSQL.
 */
export function adaptSqliteConnection(
  connection: BetterSqlite3.Database,
  capacity = 256,
): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close(): void {
      statements.clear();
      connection.close();
    },
    prepare(text: string): SqliteStatement {
      const cached = statements.get(text);
      if (cached !== undefined) return cached;
      const statement = adaptStatement(connection.prepare(text));
      if (statements.size >= capacity) {
        // Map iteration follows insertion order: this forgets the oldest statement.
        const oldest = statements.keys().next();
        if (oldest.done !== true) statements.delete(oldest.value);
      }
      statements.set(text, statement);
      return statement;
    },
  };
}

function adaptStatement(statement: BetterSqlite3.Statement): SqliteStatement {
  if (!statement.reader) return statement;
  statement.safeIntegers(true);
  return {
    reader: true,
    all: (parameters) => statement.all(...parameters).map(convertRowIntegers),
    run: (parameters) => statement.run(...parameters),
    *iterate(parameters) {
      for (const row of statement.iterate(...parameters)) yield convertRowIntegers(row);
    },
  };
}

function convertRowIntegers(row: unknown): unknown {
  if (typeof row !== 'object' || row === null) return row;
  const record = row as Record<string, unknown>;
  for (const [column, value] of Object.entries(record)) {
    if (typeof value === 'bigint') record[column] = toExactNumber(value, column);
  }
  return record;
}

const largest = BigInt(Number.MAX_SAFE_INTEGER);

function toExactNumber(value: bigint, column: string): number {
  if (value > largest || value < -largest) {
    throw new RangeError(`SQLite integer ${value} in ${column} is beyond Number.MAX_SAFE_INTEGER`);
  }
  return Number(value);
}
