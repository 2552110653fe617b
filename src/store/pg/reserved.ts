import type { Sql } from 'postgres';

/**
 * `fn` in a transaction on a connection taken from the pool (`sql.reserve()`), which postgres.js
 * gives no `begin`: an import's temporary table lives on that connection only (table-import.ts).
 */
export async function inTransaction<T>(conn: Sql, fn: (sql: Sql) => Promise<T>): Promise<T> {
  await conn`begin`;
  try {
    const result = await fn(conn);
    await conn`commit`;
    return result;
  } catch (err) {
    await conn`rollback`.catch(() => undefined);
    throw err;
  }
}
