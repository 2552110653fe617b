import type { Sql } from 'postgres';

/** A named snapshot kept in the database (`/_emulator/snapshots` on PostgreSQL): every process sees the same ones. */
export const pgShelf = (sql: Sql) => ({
  /** Saves (or replaces) `name` at once: readers see the old one or the new one whole. */
  async save(name: string, chunks: AsyncIterable<Buffer>): Promise<number> {
    let bytes = 0;
    await sql.begin(async (tx) => {
      const q = tx as unknown as Sql;
      await q`delete from wcm_named_snapshots where name = ${name}`;
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
      select name, sum(length(data))::float8 as bytes, min(created_at) as saved_at
      from wcm_named_snapshots group by name order by name`;
    return rows.map((r) => ({ name: r.name, bytes: r.bytes, saved_at: r.saved_at.toISOString() }));
  },
  async read(name: string): Promise<Buffer | undefined> {
    const rows = await sql<
      Array<{ data: Buffer }>
    >`select data from wcm_named_snapshots where name = ${name} order by chunk`;
    return rows.length ? Buffer.concat(rows.map((r) => r.data)) : undefined;
  },
  async remove(name: string): Promise<boolean> {
    return (await sql`delete from wcm_named_snapshots where name = ${name}`).count > 0;
  },
});
