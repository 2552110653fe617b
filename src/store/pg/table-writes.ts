import type { Sql } from 'postgres';
import type { CollectionName, Tx } from '../records.js';
import type { TxReads } from '../record-repository.js';
import { COPY_ROWS } from './copy.js';
import { applyRecordWrites, sendRecordWrites } from './record-writes.js';
import { applyThreadWrites, sendThreadWrites } from './thread-writes.js';
import { THREAD_COLLECTIONS } from './threads.js';
import { hasTableWrites, type TableWrites } from './write-set.js';

/**
 * The collections kept in tables rather than in the state and journal: threads (`wcm_threads`,
 * threads.ts) and the areas' records moved so far (`records`, in `wcm_records`: records.ts). No
 * process holds them.
 */
export const tableCollections = (records: ReadonlySet<CollectionName>): ReadonlySet<CollectionName> =>
  new Set([...THREAD_COLLECTIONS, ...records]);

/**
 * What a transaction may read of the tables: the records it declared (`reads`), fetched under the
 * write lock, with the writes of the transactions before it in the same batch over them (`seen`,
 * by readKey; undefined: absent).
 */
export interface TableReads {
  declared: ReadonlySet<string>;
  seen: Map<string, unknown>;
}

export const readKey = (c: CollectionName, id: string) => `${c}/${id}`;
export const noReads = (): TableReads => ({ declared: new Set(), seen: new Map() });

/**
 * Wraps a transaction on the state so that writes to `tables` (tableCollections) are collected for their
 * tables instead of going to the state, and their reads are answered from the transaction's own
 * writes, then the declared records. Reading one not declared is a programming error: it throws.
 */
export function tableTx(
  inner: Tx,
  tables: ReadonlySet<CollectionName>,
  w: TableWrites,
  reads: TableReads = noReads(),
): Tx {
  const mapOf = (c: CollectionName) => {
    let m = w.writes.get(c);
    if (!m) w.writes.set(c, (m = new Map()));
    return m;
  };
  return {
    get: (c, id) => {
      if (!tables.has(c)) return inner.get(c, id);
      const own = w.writes.get(c);
      if (own?.has(id)) return (own.get(id) ?? undefined) as never;
      if (w.cleared.has(c)) return undefined;
      const key = readKey(c, id);
      if (!reads.declared.has(key))
        throw new Error(
          `tx.get('${c}', '${id}'): ${c} are kept in PostgreSQL, and this transaction did not declare the read; pass [['${c}', id]] as store.transact's \`reads\`.`,
        );
      return reads.seen.get(key) as never;
    },
    put: (c, rec) => {
      if (!tables.has(c)) return inner.put(c, rec);
      mapOf(c).set(rec.id, Object.freeze(rec));
      return rec;
    },
    delete: (c, id) => (tables.has(c) ? void mapOf(c).set(id, null) : inner.delete(c, id)),
    clear: (c) => {
      if (!tables.has(c)) return inner.clear(c);
      // Clearing threads clears their messages too: they are one row.
      for (const x of THREAD_COLLECTIONS.has(c) ? THREAD_COLLECTIONS : [c]) {
        w.cleared.add(x);
        w.writes.delete(x);
      }
    },
  };
}

/** Adds `w`'s writes after `into`'s, as if applied one after the other (a batch's transactions are written at once). */
export function mergeWrites(into: TableWrites, w: TableWrites): void {
  for (const c of w.cleared) {
    into.cleared.add(c);
    into.writes.delete(c);
  }
  for (const [c, m] of w.writes) {
    const to = into.writes.get(c);
    if (!to) into.writes.set(c, new Map(m));
    else for (const [id, rec] of m) to.set(id, rec);
  }
}

/** Lays a committed transaction's writes over what the next ones in its batch read. */
export function seeWrites(seen: Map<string, unknown>, w: TableWrites): void {
  for (const key of seen.keys())
    if (w.cleared.has(key.slice(0, key.indexOf('/')) as CollectionName)) seen.set(key, undefined);
  for (const [c, m] of w.writes) for (const [id, rec] of m) seen.set(readKey(c, id), rec ?? undefined);
}

/** Fetches the declared records of `tables` (inside the caller's transaction). */
export async function fetchReads(
  sql: Sql,
  tables: ReadonlySet<CollectionName>,
  reads: TxReads,
): Promise<Map<string, unknown>> {
  const seen = new Map<string, unknown>();
  const want = reads.filter(([c]) => tables.has(c));
  if (!want.length) return seen;
  for (const [c, id] of want) seen.set(readKey(c, id), undefined);
  const recs = want.filter(([c]) => !THREAD_COLLECTIONS.has(c));
  if (recs.length) {
    const rows = await sql<Array<{ collection: CollectionName; id: string; body: string }>>`
      select collection, id, body from wcm_records
      where (collection, id) in (select * from unnest(${recs.map((r) => r[0])}::text[], ${recs.map((r) => r[1])}::text[]))`;
    for (const r of rows) seen.set(readKey(r.collection, r.id), Object.freeze(JSON.parse(r.body)));
  }
  const threads = want.filter(([c]) => THREAD_COLLECTIONS.has(c)).map((r) => r[1]);
  if (threads.length) {
    const rows = await sql<Array<{ id: string; thread: string; messages: string | null }>>`
      select id, thread, messages from wcm_threads where id = any(${threads})`;
    for (const r of rows) {
      seen.set(readKey('threads', r.id), Object.freeze(JSON.parse(r.thread)));
      if (r.messages) seen.set(readKey('thread_messages', r.id), Object.freeze(JSON.parse(r.messages)));
    }
  }
  return seen;
}

/**
 * A transaction's table writes when they are few, sent now in order without waiting for their
 * answers (the caller awaits them, and can send COMMIT right behind: one round trip for all);
 * null when some are many (COPY): then applyTableWrites.
 */
export function sendTableWrites(sql: Sql, w: TableWrites): Array<Promise<unknown>> | null {
  let threads = 0;
  let records = 0;
  for (const [c, m] of w.writes)
    if (THREAD_COLLECTIONS.has(c)) threads += m.size;
    else records += m.size;
  if (threads > COPY_ROWS || records > COPY_ROWS) return null;
  return [...(sendThreadWrites(sql, w) ?? []), ...(sendRecordWrites(sql, w) ?? [])];
}

/** Applies a transaction's table writes inside the caller's PostgreSQL transaction. */
export async function applyTableWrites(sql: Sql, w: TableWrites): Promise<void> {
  if (!hasTableWrites(w)) return;
  await applyThreadWrites(sql, w);
  await applyRecordWrites(sql, w);
}
