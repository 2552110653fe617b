import type { Sql } from 'postgres';
import type { CollectionName } from '../records.js';
import { COPY_ROWS, copyRows } from './copy.js';
import { INDEXES_OF, KEY_COLUMNS, keyRows, RECORD_COLUMNS, recordRow } from './records.js';
import type { TableWrites } from './write-set.js';
import { THREAD_COLLECTIONS } from './threads.js';

const indexNames = (cs: Iterable<CollectionName>) =>
  [...cs].flatMap((c) => (INDEXES_OF.get(c) ?? []).map((d) => d.name));

/**
 * Applies a transaction's writes of records (all but threads) to `wcm_records` and their keys to
 * `wcm_record_keys`, inside the caller's transaction: a written record's keys are replaced whole.
 */
export async function applyRecordWrites(sql: Sql, w: TableWrites): Promise<void> {
  // The statements are sent without waiting for each answer (pipelined on the transaction's
  // connection, run in order): a write of one record costs one round trip, not four.
  const sent: Array<Promise<unknown>> = [];
  const cleared = [...w.cleared].filter((c) => !THREAD_COLLECTIONS.has(c));
  if (cleared.length) {
    sent.push(sql`delete from wcm_record_keys where ix = any(${indexNames(cleared)})`.execute());
    sent.push(sql`delete from wcm_records where collection = any(${cleared})`.execute());
  }
  const records: Array<ReturnType<typeof recordRow>> = [];
  const keys: Array<ReturnType<typeof keyRows>[number]> = [];
  for (const [c, m] of w.writes) {
    if (THREAD_COLLECTIONS.has(c) || !m.size) continue;
    if (!w.cleared.has(c)) {
      const ids = [...m.keys()];
      const ixs = indexNames([c]);
      if (ixs.length) sent.push(sql`delete from wcm_record_keys where ix = any(${ixs}) and id = any(${ids})`.execute());
      const gone = ids.filter((id) => m.get(id) === null);
      if (gone.length) sent.push(sql`delete from wcm_records where collection = ${c} and id = any(${gone})`.execute());
    }
    for (const rec of m.values())
      if (rec !== null) {
        records.push(recordRow(c, rec as { id: string }));
        keys.push(...keyRows(c, rec as { id: string }));
      }
  }
  if (records.length <= COPY_ROWS) {
    if (records.length)
      sent.push(sql`insert into wcm_records ${sql(records, ...RECORD_COLUMNS)} ${UPSERT(sql)}`.execute());
    if (keys.length) sent.push(sql`insert into wcm_record_keys ${sql(keys, ...KEY_COLUMNS)}`.execute());
    await Promise.all(sent);
    return;
  }
  await Promise.all(sent);
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

/** A put replaces the record's text and export key; its first position stays, as a map's does. */
const UPSERT = (sql: Sql) => sql`on conflict (collection, id) do update set k = excluded.k, body = excluded.body`;
