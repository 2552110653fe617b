import type { Sql } from 'postgres';
import type { Tx } from '../records.js';
import type { TxReads } from '../record-repository.js';
import type { Op } from '../state.js';
import type { JournalRow, SharedHost } from './shared-host.js';
import { applyTableWrites, fetchReads, mergeWrites, readKey, seeWrites, sendTableWrites } from './table-writes.js';
import { hasTableWrites, noTableWrites, type TableWrites } from './write-set.js';

/** Every writer, in every process, takes this transaction-scoped advisory lock (with its schema's hash): one writer at a time. */
export const WRITE_LOCK = 0x77636d; // "wcm"

export const lockWrites = (sql: Sql) =>
  sql`select pg_advisory_xact_lock(${WRITE_LOCK}, hashtext(current_schema()))`.execute();

/** A transaction of a batch: its function, and the table records it reads (fetched under the lock before it runs). */
export interface BatchItem {
  fn?: (tx: Tx) => unknown;
  reads?: TxReads;
}

/** A transaction queued in PgLog (log.ts), or a bulk load. */
export interface Pending {
  /** A transaction's function; a bulk load's is made by `bulk`. */
  fn?: (tx: Tx) => unknown;
  resolve: (v: unknown) => void;
  reject: (err: unknown) => void;
  /** The table records `fn` reads (TxReads): fetched under the lock before it runs. */
  reads?: TxReads;
  /** A bulk load: makes its function inside its transaction, once it holds the write lock. */
  bulk?: (sql: Sql) => Promise<(tx: Tx) => unknown>;
  /** Run in the bulk's transaction after its writes (a named snapshot's threads copied back). */
  then?: (sql: Sql) => Promise<unknown>;
  /** A reserved connection the bulk's transaction runs on (an import's temporary table is there). */
  on?: Sql;
  /** Run in the bulk's transaction BEFORE it takes the write lock (an import moves its threads). */
  before?: (sql: Sql) => Promise<unknown>;
}

/** How the bulk's transaction runs besides its function (PgLog.bulkFrom). */
export interface BulkSteps {
  then?: (sql: Sql) => Promise<unknown>;
  on?: Sql;
  before?: (sql: Sql) => Promise<unknown>;
}

/** What a batch's transactions did: run on the state (with their undo), or threw. */
export interface BatchOutcome<P> {
  done: Array<{ p: P; result: unknown; undo: Op[] }>;
  failed: Array<{ p: P; err: unknown }>;
}

/**
 * Writes `batch` as one PostgreSQL transaction, in three round trips: BEGIN; the write lock (then
 * `steps.locked` is called), the declared reads and the catch-up (`steps.catchUp`), sent together;
 * the journal rows and table writes with COMMIT right behind them. `out` is filled as the transactions run on the state: if this
 * throws, nothing was committed and the caller undoes `out.done`.
 */
export async function writeBatchTx<P extends BatchItem>(
  pool: Sql,
  host: SharedHost,
  batch: P[],
  steps: { catchUp: (sql: Sql) => Promise<void>; locked: () => void },
  out: BatchOutcome<P>,
): Promise<void> {
  const { sent } = await pool.begin(async (t) => {
    const sql = t as unknown as Sql;
    // Run in the order sent, the reads and catch-up once the lock is held. Each statement in this
    // transaction reads what was committed before it started, so none misses a write.
    const [, seen] = await Promise.all([
      lockWrites(sql).then(() => steps.locked()),
      // Each transaction's writes are laid over these reads for the next (seeWrites).
      fetchReads(
        sql,
        host.tables,
        batch.flatMap((p) => p.reads ?? []),
      ),
      steps.catchUp(sql),
    ]);
    const { rows, tables } = runBatch(host, batch, seen, out);
    return { sent: await sendWrites(sql, rows, tables) };
  });
  // COMMIT went out behind the writes. Had one failed, the transaction was aborted and COMMIT
  // rolled it back (PostgreSQL answers it without an error): the failure shows here.
  await Promise.all(sent);
}

/**
 * Runs the batch's transactions on the state in order, each seeing the table records read
 * (`seen`) with the writes of those before it over them; moves `host.seq` past their journal rows.
 * Returns the rows and the batch's table writes, merged in order (written with one set of statements).
 */
export function runBatch<P extends BatchItem>(
  host: SharedHost,
  batch: P[],
  seen: Map<string, unknown>,
  out: BatchOutcome<P>,
): { rows: JournalRow[]; tables: TableWrites } {
  const base = host.seq;
  const rows: JournalRow[] = [];
  const tables = noTableWrites();
  for (const p of batch) {
    try {
      const declared = new Set((p.reads ?? []).map(([c, id]) => readKey(c, id)));
      const { result, ops, undo, table } = host.run(p.fn!, { declared, seen });
      seeWrites(seen, table);
      // A write of threads only still takes a journal row (its ops may be none): every
      // process's sequence number moves, and with it the threads' page cache (threads.ts).
      if (ops.length || hasTableWrites(table)) rows.push({ seq: base + rows.length + 1, ops: JSON.stringify(ops) });
      mergeWrites(tables, table);
      out.done.push({ p, result, undo });
    } catch (err) {
      out.failed.push({ p, err });
    }
  }
  if (rows.length) host.seq = rows[rows.length - 1].seq;
  return { rows, tables };
}

/**
 * Sends the batch's journal rows and table writes. When they are few, their answers are not
 * awaited: returned instead, so that `begin` sends COMMIT right behind them (one round trip for
 * the whole write); many (COPY) are written before.
 */
async function sendWrites(sql: Sql, rows: JournalRow[], tables: TableWrites): Promise<Array<Promise<unknown>>> {
  const sent: Array<Promise<unknown>> = [];
  // Column arrays: one statement text whatever the batch's size (record-writes.ts).
  if (rows.length)
    sent.push(
      sql`insert into wcm_journal (seq, ops)
        select * from unnest(${rows.map((r) => r.seq)}::bigint[], ${rows.map((r) => r.ops)}::text[])`.execute(),
    );
  const few = sendTableWrites(sql, tables);
  if (few) return [...sent, ...few];
  await Promise.all(sent);
  await applyTableWrites(sql, tables);
  return [];
}
