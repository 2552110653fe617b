import { createHash } from 'node:crypto';
import type { Sql } from 'postgres';
import type { CollectionName } from '../records.js';
import type { BulkSteps } from './log.js';
import { buildNext, swapIn, type Next } from './table-swap.js';
import { KEY_COLUMNS, RECORD_COLUMNS } from './records.js';
import { THREAD_COLLECTIONS, THREAD_COLUMNS } from './threads.js';

/** How a restore puts a named snapshot's tables back (Store.restore): steps of its bulk load. */
export interface TablesBack extends BulkSteps {
  /** Under the write lock, before the load's writes: the threads' table built by `before` swapped in. */
  swap: (sql: Sql) => Promise<unknown>;
  /** The collections `swap` replaces whole: the load must not clear them. */
  swapped: readonly CollectionName[];
}

/**
 * A reset read a named snapshot's bytes, and by the time its transaction locked them they were
 * another save's (or gone): the bytes and the tables would not be one snapshot. Nothing was
 * written; read it again.
 */
export class SnapshotChangedError extends Error {
  constructor(readonly snapshot: string) {
    super(`The snapshot \`${snapshot}\` was saved again or removed while the reset read it; nothing was reset.`);
  }
}

const digest = (chunks: Buffer[]) => {
  const h = createHash('sha256');
  for (const c of chunks) h.update(c);
  return h.digest('hex');
};

/** The tables a reset puts back from a snapshot's copies: their columns, in the order their rows were first written. */
const BACK = [
  ['wcm_threads', 'wcm_named_threads', THREAD_COLUMNS, ''],
  ['wcm_records', 'wcm_named_records', RECORD_COLUMNS, 'order by pos'],
  ['wcm_record_keys', 'wcm_named_record_keys', KEY_COLUMNS, ''],
] as const;

/** The tables a named snapshot copies beside its bytes (the records no process holds), and their copies. */
const COPIED = [
  ['wcm_threads', 'wcm_named_threads'],
  ['wcm_records', 'wcm_named_records'],
  ['wcm_record_keys', 'wcm_named_record_keys'],
] as const;

/** A named snapshot kept in the database (`/_emulator/snapshots` on PostgreSQL): every process sees the same ones. */
export const pgShelf = (sql: Sql) => ({
  /** Saves (or replaces) `name` at once: readers see the old one or the new one whole. */
  async save(name: string, chunks: AsyncIterable<Buffer>): Promise<number> {
    let bytes = 0;
    await sql.begin(async (tx) => {
      const q = tx as unknown as Sql;
      await q`delete from wcm_named_snapshots where name = ${name}`;
      // Threads and records are in their tables: the snapshot copies them, in the same transaction.
      for (const [table, copy] of COPIED) {
        await q`delete from ${q(copy)} where name = ${name}`;
        await q`insert into ${q(copy)} select ${name}, t.* from ${q(table)} t`;
      }
      let n = 0;
      for await (const data of chunks) {
        bytes += data.length;
        await q`insert into wcm_named_snapshots (name, chunk, data) values (${name}, ${n++}, ${data})`;
      }
    });
    return bytes;
  },
  async list(): Promise<Array<{ name: string; bytes: number; saved_at: string }>> {
    const rows = await sql<Array<{ name: string; bytes: number; saved_at: Date }>>`
      select s.name, (sum(length(s.data)) + coalesce(max(t.bytes), 0))::float8 as bytes, min(s.created_at) as saved_at
      from wcm_named_snapshots s
      left join (select name, sum(bytes) as bytes from (
                   select name, sum(octet_length(thread) + coalesce(octet_length(messages), 0)) as bytes
                   from wcm_named_threads group by name
                   union all select name, sum(octet_length(body)) from wcm_named_records group by name) b
                 group by name) t on t.name = s.name
      group by s.name order by s.name`;
    return rows.map((r) => ({ name: r.name, bytes: r.bytes, saved_at: r.saved_at.toISOString() }));
  },
  async read(name: string): Promise<Buffer | undefined> {
    const rows = await sql<
      Array<{ data: Buffer }>
    >`select data from wcm_named_snapshots where name = ${name} order by chunk`;
    return rows.length ? Buffer.concat(rows.map((r) => r.data)) : undefined;
  },
  async remove(name: string): Promise<boolean> {
    return sql.begin(async (tx) => {
      const q = tx as unknown as Sql;
      for (const [, copy] of COPIED) await q`delete from ${q(copy)} where name = ${name}`;
      return (await q`delete from wcm_named_snapshots where name = ${name}`).count > 0;
    });
  },
  /**
   * Puts the snapshot's threads and records back. Their tables are built aside before the write
   * lock and swapped in under it (table-swap.ts, as a replacing import does): other processes'
   * writes wait for the swap, not for copying and indexing every row. `saved`: the snapshot's
   * bytes as the reset read them, before its transaction. The transaction first locks the
   * snapshot's rows (a save or a removal of it waits until the reset ends) and checks that they
   * are still those bytes: else the tables it reads next would be another save's
   * (SnapshotChangedError, and nothing is written). `tabled`: the collections kept in
   * `wcm_records`, which the swap replaces whole (a collection moved there since the save comes
   * back from the bytes, put over the swapped table).
   */
  tablesBack(name: string, saved: Buffer, tabled: ReadonlySet<CollectionName>): TablesBack {
    // A digest now: the restore patches the bytes in place (patchSaved) before its transaction.
    const read = digest([saved]);
    const next: Next[] = [];
    return {
      swapped: [...THREAD_COLLECTIONS, ...tabled],
      before: async (q) => {
        const rows = await q<Array<{ data: Buffer }>>`
          select data from wcm_named_snapshots where name = ${name} order by chunk for share`;
        if (digest(rows.map((r) => r.data)) !== read) throw new SnapshotChangedError(name);
        for (const [table, copy, columns, order] of BACK) {
          const from = q`select ${q([...columns])} from ${q(copy)} where name = ${name} ${q.unsafe(order)}`;
          next.push(await buildNext(q, table, columns, from));
        }
      },
      swap: async (q) => {
        for (const n of next) await swapIn(q, n);
      },
    };
  },
});
