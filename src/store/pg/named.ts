import type { Sql } from 'postgres';
import { THREAD_COLUMNS } from './threads.js';

/** A named snapshot kept in the database (`/_emulator/snapshots` on PostgreSQL): every process sees the same ones. */
export const pgShelf = (sql: Sql) => ({
  /** Saves (or replaces) `name` at once: readers see the old one or the new one whole. */
  async save(name: string, chunks: AsyncIterable<Buffer>): Promise<number> {
    let bytes = 0;
    await sql.begin(async (tx) => {
      const q = tx as unknown as Sql;
      await q`delete from wcm_named_snapshots where name = ${name}`;
      // The threads are in their own table: the snapshot copies it, in the same transaction.
      await q`delete from wcm_named_threads where name = ${name}`;
      await q`insert into wcm_named_threads select ${name}, t.* from wcm_threads t`;
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
      left join (select name, sum(octet_length(thread) + coalesce(octet_length(messages), 0)) as bytes
                 from wcm_named_threads group by name) t on t.name = s.name
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
      await q`delete from wcm_named_threads where name = ${name}`;
      return (await q`delete from wcm_named_snapshots where name = ${name}`).count > 0;
    });
  },
  /** Copies the snapshot's threads back (run in the restoring transaction, after the table was emptied). */
  threadsBack(name: string) {
    return (q: Sql) =>
      q`insert into wcm_threads select ${q(THREAD_COLUMNS as unknown as string[])} from wcm_named_threads where name = ${name}`;
  },
});
