import type { Fragment, Sql } from 'postgres';

/** The table a replacing import builds beside `wcm_threads`, in its transaction, then swaps in. */
const NEXT = 'wcm_threads_next';
/** How long the swap waits for the readers of `wcm_threads` before it copies the rows instead. */
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
  indexes: Index[] | null;
  rows: Fragment;
}

/**
 * Before the write lock, in the load's transaction (so a failure or a crash leaves nothing): a
 * copy of `wcm_threads`'s definition filled by `rows` (a query of its columns in order: an
 * import's table aside, a named snapshot's threads), then its indexes built over the rows
 * (one sort each, much faster than maintaining them row by row) and its statistics taken. Other
 * processes never see the table: it is created in the transaction. Fewer than SWAP_MIN_ROWS rows
 * build nothing: `swapIn` copies them.
 */
export async function buildNext(sql: Sql, rows: Fragment): Promise<Next> {
  const [{ n }] = await sql<Array<{ n: number }>>`select count(*)::int as n from (${rows}) r`;
  if (n < SWAP_MIN_ROWS) return { indexes: null, rows };
  await sql`create table ${sql(NEXT)} (like wcm_threads including defaults including constraints including storage)`;
  await sql`insert into ${sql(NEXT)} ${rows}`;
  const indexes = await sql<Index[]>`
    select c.relname as name, pg_get_indexdef(i.indexrelid) as def, i.indisprimary as primary
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = 'wcm_threads'::regclass`;
  for (const ix of indexes) {
    await sql.unsafe(nextIndex(ix));
    if (ix.primary) await sql.unsafe(`alter table ${NEXT} add primary key using index ${quote(`${ix.name}_next`)}`);
  }
  await sql`analyze ${sql(NEXT)}`;
  return { indexes, rows };
}

/**
 * Under the write lock: the table built aside in place of `wcm_threads`, under its indexes' names.
 * Dropping the table waits for every reader of it; one that reads for long (another process's
 * export) would keep every writer waiting behind the lock, so after SWAP_WAIT the rows are copied
 * over instead (the slower move the swap saves, but no wait without end).
 */
export async function swapIn(sql: Sql, { indexes, rows }: Next): Promise<void> {
  if (!indexes) {
    await sql`delete from wcm_threads`;
    await sql`insert into wcm_threads ${rows}`;
    return;
  }
  await sql`savepoint wcm_swap`;
  try {
    await sql.unsafe(`set local lock_timeout = '${SWAP_WAIT}'`);
    await sql`lock table wcm_threads in access exclusive mode`;
  } catch (err) {
    if ((err as { code?: string }).code !== LOCK_NOT_AVAILABLE) throw err;
    await sql`rollback to savepoint wcm_swap`;
    await sql`delete from wcm_threads`;
    await sql`insert into wcm_threads select * from ${sql(NEXT)}`;
    await sql`drop table ${sql(NEXT)}`;
    await sql`analyze wcm_threads`;
    return;
  }
  await sql`set local lock_timeout to default`;
  await sql`drop table wcm_threads`;
  await sql`alter table ${sql(NEXT)} rename to wcm_threads`;
  // Renaming the primary key's index renames its constraint too.
  for (const ix of indexes) await sql.unsafe(`alter index ${quote(`${ix.name}_next`)} rename to ${quote(ix.name)}`);
}

/** An index of `wcm_threads` (pg_get_indexdef's statement) made on the table aside, its name suffixed. */
function nextIndex(ix: Index): string {
  const m = /^(CREATE (?:UNIQUE )?INDEX )\S+( ON (?:ONLY )?)(\S*?)wcm_threads( USING .*)$/s.exec(ix.def);
  if (!m) throw new Error(`Cannot copy the index ${ix.name} of wcm_threads: ${ix.def}`);
  return `${m[1]}${quote(`${ix.name}_next`)}${m[2]}${m[3]}${NEXT}${m[4]}`;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
