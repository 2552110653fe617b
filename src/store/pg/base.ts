import type { Sql } from 'postgres';

/**
 * The base: the whole state at one sequence number, as the JSON store's snapshot bytes, kept in
 * rows of at most a few MB (chunk 0 first). The journal's rows after it bring it up to date.
 */
export async function readBase(sql: Sql): Promise<{ seq: number; bytes: Buffer | null }> {
  const rows = await sql<
    Array<{ seq: number; data: Buffer }>
  >`select seq::float8 as seq, data from wcm_base order by chunk`;
  if (!rows.length) return { seq: 0, bytes: null };
  return { seq: rows[0].seq, bytes: Buffer.concat(rows.map((r) => r.data)) };
}

/** Replaces the base by `chunks` at `seq` (inside the caller's transaction). */
export async function writeBase(sql: Sql, seq: number, chunks: AsyncIterable<Buffer>): Promise<void> {
  await sql`delete from wcm_base`;
  let n = 0;
  for await (const data of chunks) await sql`insert into wcm_base (chunk, seq, data) values (${n++}, ${seq}, ${data})`;
}
