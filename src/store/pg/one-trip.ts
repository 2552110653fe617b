import type { Sql } from 'postgres';
import { COPY_ROWS } from './copy.js';
import { type BatchItem, type BatchOutcome, runBatch, WRITE_LOCK } from './batch.js';
import { INDEXES_OF, keyRows, recordRow } from './records.js';
import type { JournalRow, SharedHost } from './shared-host.js';
import { THREAD_COLLECTIONS } from './threads.js';
import type { TableWrites } from './write-set.js';

/**
 * Migration 8: takes the write lock if it is free and checks that nothing was committed past
 * `expected` (journal or base); else raises CLAIM_REFUSED. Each statement of a volatile function
 * reads with a snapshot of its own, taken here after the lock: it sees every commit before it.
 */
export const CLAIM_FUNCTION = `create function wcm_claim_writes(lock integer, expected bigint) returns bigint
  language plpgsql volatile as $$
  begin
    if not pg_try_advisory_xact_lock(lock, hashtext(current_schema())) then
      raise exception 'the write lock is held by another writer' using errcode = 'WCM01';
    end if;
    if coalesce((select max(seq) from wcm_journal), 0) > expected
      or coalesce((select seq from wcm_base where chunk = 0), 0) > expected then
      raise exception 'the journal moved past %', expected using errcode = 'WCM01';
    end if;
    return expected;
  end $$`;

/** SQLSTATE of wcm_claim_writes' refusal: nothing was written, the batch takes the usual path. */
export const isClaimRefused = (err: unknown) => (err as { code?: unknown } | null)?.code === 'WCM01';

/**
 * Writes a batch in ONE statement, outside a transaction block (so its own transaction: no BEGIN,
 * no COMMIT, one round trip), when this process holds everything committed so far: the batch's
 * transactions run on the state first, then the statement claims the write lock without waiting
 * and checks the journal has not moved (wcm_claim_writes), and writes the journal rows and the
 * records. Only for batches that declare no reads and write only records, few of them and no
 * collection emptied; for any other the state is put back and this returns false before sending
 * anything (writeBatchTx then). Once the claim succeeds the state the transactions ran on was
 * current, so those that threw did so rightly. Throws what PostgreSQL answered: the caller undoes
 * `out.done`.
 */
export async function writeOneTrip<P extends BatchItem>(
  sql: Sql,
  host: SharedHost,
  batch: P[],
  out: BatchOutcome<P>,
): Promise<boolean> {
  if (batch.some((p) => p.reads?.length)) return false;
  const base = host.seq;
  const { rows, tables } = runBatch(host, batch, new Map(), out);
  // Nothing to write (every transaction threw, maybe on a state behind the database's): only the
  // usual path, catching up under the lock, can tell.
  const writes = rows.length ? recordWrites(tables) : null;
  if (!writes) {
    for (let i = out.done.length - 1; i >= 0; i--) host.rollback(out.done[i].undo);
    host.seq = base;
    out.done.length = out.failed.length = 0;
    return false;
  }
  await send(sql, base, rows, writes);
  return true;
}

/** The statement's column arrays: the records' rows and keys, and the (index, id) and (collection, id) pairs deleted. */
function recordWrites(w: TableWrites) {
  if (w.cleared.size) return null;
  const out = { records: [] as Array<ReturnType<typeof recordRow>>, keys: [] as ReturnType<typeof keyRows> };
  const stale = { ix: [] as string[], id: [] as string[] };
  const gone = { collection: [] as string[], id: [] as string[] };
  for (const [c, m] of w.writes) {
    if (THREAD_COLLECTIONS.has(c) && m.size) return null;
    const ixs = (INDEXES_OF.get(c) ?? []).map((d) => d.name as string);
    for (const [id, rec] of m) {
      // A written record's keys are replaced whole: its old ones go (none for a new record).
      for (const ix of ixs) {
        stale.ix.push(ix);
        stale.id.push(id);
      }
      if (rec === null) {
        gone.collection.push(c);
        gone.id.push(id);
      } else {
        out.records.push(recordRow(c, rec as { id: string }));
        out.keys.push(...keyRows(c, rec as { id: string }));
      }
    }
  }
  if (out.records.length > COPY_ROWS || out.keys.length > COPY_ROWS) return null;
  return { ...out, stale, gone };
}

/**
 * The statement. Its text is the same whatever the batch (column arrays), so each connection
 * prepares it once. The main query reads `ok` first, so the claim runs before any write. The
 * deletes and inserts see the rows as they were when it started: a new key equal to a deleted
 * old one (a record written again with the same sort key) updates that row instead.
 */
async function send(sql: Sql, base: number, rows: JournalRow[], w: NonNullable<ReturnType<typeof recordWrites>>) {
  const hex = (rs: Array<{ k: Buffer | null }>) => rs.map((r) => r.k && r.k.toString('hex'));
  await sql`
    with ok as materialized (select wcm_claim_writes(${WRITE_LOCK}, ${base}::bigint) as seq),
    journal as (
      insert into wcm_journal (seq, ops)
      select s, o from ok, unnest(${rows.map((r) => r.seq)}::bigint[], ${rows.map((r) => r.ops)}::text[]) as t(s, o)),
    stale as (
      delete from wcm_record_keys
      where (ix, id) in (select * from unnest(${w.stale.ix}::text[], ${w.stale.id}::text[])) and (select seq from ok) >= 0),
    gone as (
      delete from wcm_records
      where (collection, id) in (select * from unnest(${w.gone.collection}::text[], ${w.gone.id}::text[]))
        and (select seq from ok) >= 0),
    recs as (
      insert into wcm_records (collection, id, k, body)
      select c, i, decode(k, 'hex'), b
      from ok, unnest(${w.records.map((r) => r.collection)}::text[], ${w.records.map((r) => r.id)}::text[],
        ${hex(w.records)}::text[], ${w.records.map((r) => r.body)}::text[]) as t(c, i, k, b)
      on conflict (collection, id) do update set k = excluded.k, body = excluded.body),
    keys as (
      insert into wcm_record_keys (ix, part, k, id)
      select x, p, decode(k, 'hex'), i
      from ok, unnest(${w.keys.map((r) => r.ix)}::text[], ${w.keys.map((r) => r.part)}::text[],
        ${hex(w.keys)}::text[], ${w.keys.map((r) => r.id)}::text[]) as t(x, p, k, i)
      on conflict (ix, part, k) do update set id = excluded.id)
    select seq from ok`;
}
