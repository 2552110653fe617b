import type { Sql } from 'postgres';
import type { CollectionName } from '../records.js';
import { COPY_ROWS, copyRows } from './copy.js';
import { INDEXES_OF, KEY_COLUMNS, keyRows, RECORD_COLUMNS, recordRow } from './records.js';
import type { TableWrites } from './write-set.js';
import { THREAD_COLLECTIONS } from './threads.js';

const indexNames = (cs: Iterable<CollectionName>) =>
  [...cs].flatMap((c) => (INDEXES_OF.get(c) ?? []).map((d) => d.name));

type Rows = { records: Array<ReturnType<typeof recordRow>>; keys: Array<ReturnType<typeof keyRows>[number]> };

/** The rows a transaction's record writes put (a deleted record has none). */
function rowsOf(w: TableWrites): Rows {
  const rows: Rows = { records: [], keys: [] };
  for (const [c, m] of w.writes) {
    if (THREAD_COLLECTIONS.has(c)) continue;
    for (const rec of m.values())
      if (rec !== null) {
        rows.records.push(recordRow(c, rec as { id: string }));
        rows.keys.push(...keyRows(c, rec as { id: string }));
      }
  }
  return rows;
}

/**
 * Sends (without waiting for their answers: a connection runs them in order) the deletes of a
 * transaction's record writes: the collections it emptied, the written records' old keys (a written
 * record's keys are replaced whole) and the records it deleted.
 */
function sendDeletes(sql: Sql, w: TableWrites): Array<Promise<unknown>> {
  const sent: Array<Promise<unknown>> = [];
  const cleared = [...w.cleared].filter((c) => !THREAD_COLLECTIONS.has(c));
  if (cleared.length) {
    sent.push(sql`delete from wcm_record_keys where ix = any(${indexNames(cleared)})`.execute());
    sent.push(sql`delete from wcm_records where collection = any(${cleared})`.execute());
  }
  for (const [c, m] of w.writes) {
    if (THREAD_COLLECTIONS.has(c) || !m.size || w.cleared.has(c)) continue;
    const ids = [...m.keys()];
    const ixs = indexNames([c]);
    if (ixs.length) sent.push(sql`delete from wcm_record_keys where ix = any(${ixs}) and id = any(${ids})`.execute());
    const gone = ids.filter((id) => m.get(id) === null);
    if (gone.length) sent.push(sql`delete from wcm_records where collection = ${c} and id = any(${gone})`.execute());
  }
  return sent;
}

/**
 * The statements of a transaction's record writes when they are few, sent now in order (the
 * caller awaits them, and may send COMMIT behind them: one round trip for all); null when they
 * are many (applyRecordWrites loads them with COPY).
 */
export function sendRecordWrites(sql: Sql, w: TableWrites, rows = rowsOf(w)): Array<Promise<unknown>> | null {
  const { records, keys } = rows;
  if (records.length > COPY_ROWS) return null;
  const sent = sendDeletes(sql, w);
  // One column array per parameter, not a VALUES row per record: the statement's text is the same
  // whatever the batch's size, so each connection prepares it once (a new text costs a round trip
  // to describe it, which also holds back the statements behind it).
  if (records.length)
    sent.push(
      sql`insert into wcm_records (collection, id, k, body)
      select c, i, decode(k, 'hex'), b
      from unnest(${column(records, 'collection')}::text[], ${column(records, 'id')}::text[],
        ${hex(records)}::text[], ${column(records, 'body')}::text[]) as t(c, i, k, b)
      ${UPSERT(sql)}`.execute(),
    );
  if (keys.length)
    sent.push(
      sql`insert into wcm_record_keys (ix, part, k, id)
      select ix, part, decode(k, 'hex'), id
      from unnest(${column(keys, 'ix')}::text[], ${column(keys, 'part')}::text[],
        ${hex(keys)}::text[], ${column(keys, 'id')}::text[]) as t(ix, part, k, id)`.execute(),
    );
  return sent;
}

/** Applies a transaction's writes of records (all but threads) to `wcm_records` and their keys to `wcm_record_keys`, inside the caller's transaction. */
export async function applyRecordWrites(sql: Sql, w: TableWrites): Promise<void> {
  const rows = rowsOf(w);
  const few = sendRecordWrites(sql, w, rows);
  if (few) return void (await Promise.all(few));
  const { records, keys } = rows;
  await Promise.all(sendDeletes(sql, w));
  // Many: their old keys are gone already, so the keys COPY straight in; records too when every
  // collection written was emptied first, else COPY aside and one upsert from there.
  if (records.every((r) => w.cleared.has(r.collection))) await copyRows(sql, 'wcm_records', RECORD_COLUMNS, records);
  else {
    await sql`create temp table if not exists wcm_records_in (collection text, id text, k bytea, body text) on commit drop`;
    await sql`truncate wcm_records_in`;
    await copyRows(sql, 'wcm_records_in', RECORD_COLUMNS, records);
    await sql`insert into wcm_records (collection, id, k, body) select collection, id, k, body from wcm_records_in ${UPSERT(sql)}`;
  }
  await copyRows(sql, 'wcm_record_keys', KEY_COLUMNS, keys);
  // Fresh statistics at once (as for threads, thread-writes.ts): the planner sees the new rows.
  await sql`analyze wcm_records, wcm_record_keys`;
}

const column = <R, K extends keyof R>(rows: R[], key: K) => rows.map((r) => r[key]);
const hex = (rows: Array<{ k: Buffer | null }>) => rows.map((r) => r.k && r.k.toString('hex'));

/** A put replaces the record's text and export key; its first position stays, as a map's does. */
const UPSERT = (sql: Sql) => sql`on conflict (collection, id) do update set k = excluded.k, body = excluded.body`;
