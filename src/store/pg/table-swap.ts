import type { Fragment, Sql } from 'postgres';

/** How long the swap waits for the readers of the table before it copies the rows instead. */
const SWAP_WAIT = '2s';
/** SQLSTATE lock_not_available: lock_timeout passed. */
const LOCK_NOT_AVAILABLE = '55P03';

interface Index {
  name: string;
  def: string;
  primary: boolean;
}

/**
 * Below this many rows the rows are copied under the lock instead: building a table and its
 * indexes aside costs more than the copy saves (a reset of the demo's snapshot on PostgreSQL took
 * 63–65 ms built aside, 43–44 ms copied), and the lock is held for a few milliseconds either way.
 */
export const SWAP_MIN_ROWS = 1000;

/** What `buildNext` made: the table aside and the indexes to rename, or (few rows) only the rows to copy. */
export interface Next {
  table: string;
  columns: readonly string[];
  indexes: Index[] | null;
  rows: Fragment;
}

const nextOf = (table: string) => `${table}_next`;

/**
 * Before the write lock, in the load's transaction (so a failure or a crash leaves nothing): a
 * copy of `table`'s definition (`wcm_threads`, `wcm_records`, `wcm_record_keys`) filled by `rows`
 * (a query of `columns`: an import's table aside, a named snapshot's rows; an identity left out is
 * numbered in the rows' order), then its
 * indexes built over the rows (one sort each, much faster than maintaining them row by row) and its
 * statistics taken. Other processes never see the table: it is created in the transaction. Fewer
 * than SWAP_MIN_ROWS rows build nothing: `swapIn` copies them.
 */
export async function buildNext(sql: Sql, table: string, columns: readonly string[], rows: Fragment): Promise<Next> {
  const [{ n }] = await sql<Array<{ n: number }>>`select count(*)::int as n from (${rows}) r`;
  if (n < SWAP_MIN_ROWS) return { table, columns, indexes: null, rows };
  const next = nextOf(table);
  await sql`create table ${sql(next)} (like ${sql(table)}
    including defaults including constraints including storage including identity)`;
  await sql`insert into ${sql(next)} (${sql(columns as string[])}) ${rows}`;
  const indexes = await sql<Index[]>`
    select c.relname as name, pg_get_indexdef(i.indexrelid) as def, i.indisprimary as primary
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = ${table}::regclass`;
  for (const ix of indexes) {
    await sql.unsafe(nextIndex(table, ix));
    if (ix.primary) await sql.unsafe(`alter table ${next} add primary key using index ${quote(`${ix.name}_next`)}`);
  }
  await sql`analyze ${sql(next)}`;
  return { table, columns, indexes, rows };
}

/**
 * Under the write lock: the table built aside in place of the old one, under its indexes' names.
 * Dropping the table waits for every reader of it; one that reads for long (another process's
 * export) would keep every writer waiting behind the lock, so after SWAP_WAIT the rows are copied
 * over instead (the slower move the swap saves, but no wait without end).
 */
export async function swapIn(sql: Sql, { table, columns, indexes, rows }: Next): Promise<void> {
  const next = nextOf(table);
  if (!indexes) {
    await sql`delete from ${sql(table)}`;
    await sql`insert into ${sql(table)} (${sql(columns as string[])}) ${rows}`;
    return;
  }
  await sql`savepoint wcm_swap`;
  try {
    await sql.unsafe(`set local lock_timeout = '${SWAP_WAIT}'`);
    await sql`lock table ${sql(table)} in access exclusive mode`;
  } catch (err) {
    if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
    await sql`rollback to savepoint wcm_swap`;
    await sql`delete from ${sql(table)}`;
    await sql`insert into ${sql(table)} select * from ${sql(next)}`;
    await sql`drop table ${sql(next)}`;
    await sql`analyze ${sql(table)}`;
    return;
  }
  await sql`set local lock_timeout to default`;
  await sql`drop table ${sql(table)}`;
  await sql`alter table ${sql(next)} rename to ${sql(table)}`;
  // Renaming the primary key's index renames its constraint too.
  for (const ix of indexes) await sql.unsafe(`alter index ${quote(`${ix.name}_next`)} rename to ${quote(ix.name)}`);
  await renameSequences(sql, table);
}

/** An identity's sequence made for the table aside takes the old one's name (gone with it), as a later swap expects. */
async function renameSequences(sql: Sql, table: string): Promise<void> {
  const seqs = await sql<Array<{ seq: string; col: string }>>`
    select pg_get_serial_sequence(${table}, attname) as seq, attname as col from pg_attribute
    where attrelid = ${table}::regclass and attidentity <> ''`;
  for (const { seq, col } of seqs) await sql.unsafe(`alter sequence ${seq} rename to ${quote(`${table}_${col}_seq`)}`);
}

/** An index of `table` (pg_get_indexdef's statement) made on the table aside, its name suffixed. */
function nextIndex(table: string, ix: Index): string {
  const m = new RegExp(`^(CREATE (?:UNIQUE )?INDEX )\\S+( ON (?:ONLY )?)(\\S*?)${table}( USING .*)$`, 's').exec(ix.def);
  if (!m) throw new Error(`Cannot copy the index ${ix.name} of ${table}: ${ix.def}`);
  return `${m[1]}${quote(`${ix.name}_next`)}${m[2]}${m[3]}${nextOf(table)}${m[4]}`;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
