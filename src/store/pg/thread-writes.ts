import type { Sql } from 'postgres';
import type { ThreadMessagesRecord, ThreadRecord, Tx } from '../records.js';
import { TABLE_COLLECTIONS, THREAD_COLUMNS, threadRow } from './threads.js';

/** A transaction's writes to the thread table: whether it emptied it first, then its puts and deletes in order. */
export interface TableWrites {
  cleared: boolean;
  threads: Map<string, ThreadRecord | null>;
  messages: Map<string, ThreadMessagesRecord | null>;
}

export const noTableWrites = (): TableWrites => ({ cleared: false, threads: new Map(), messages: new Map() });

/**
 * Wraps a transaction on the state so that writes to threads (TABLE_COLLECTIONS) are collected for
 * `wcm_threads` instead of going to the state: the state of a process on PostgreSQL holds no thread.
 */
export function tableTx(inner: Tx, w: TableWrites): Tx {
  const mapOf = (c: string) => (c === 'threads' ? w.threads : w.messages) as Map<string, unknown>;
  return {
    get: (c, id) => (TABLE_COLLECTIONS.has(c) ? ((mapOf(c).get(id) ?? undefined) as never) : inner.get(c, id)),
    put: (c, rec) => {
      if (!TABLE_COLLECTIONS.has(c)) return inner.put(c, rec);
      mapOf(c).set(rec.id, Object.freeze(rec));
      return rec;
    },
    delete: (c, id) => (TABLE_COLLECTIONS.has(c) ? void mapOf(c).set(id, null) : inner.delete(c, id)),
    clear: (c) => {
      if (!TABLE_COLLECTIONS.has(c)) return inner.clear(c);
      // Clearing threads clears their messages too: they are one row.
      w.cleared = true;
      w.threads.clear();
      w.messages.clear();
    },
  };
}

export const hasTableWrites = (w: TableWrites) => w.cleared || w.threads.size > 0 || w.messages.size > 0;

/** Above this many rows, they are loaded with COPY rather than INSERT. */
const COPY_ROWS = 1000;

/** Applies the writes to `wcm_threads` inside the caller's transaction. */
export async function applyTableWrites(sql: Sql, w: TableWrites): Promise<void> {
  if (w.cleared) await sql`delete from wcm_threads`;
  const gone = [...w.threads].filter(([, t]) => t === null).map(([id]) => id);
  if (gone.length) await sql`delete from wcm_threads where id = any(${gone})`;
  const rows = [...w.threads.values()]
    .filter((t): t is ThreadRecord => t !== null)
    .map((t) => threadRow(t, w.messages.get(t.id)));
  // Messages written without their thread (none of our writers do): the row's messages only.
  for (const [id, m] of w.messages)
    if (m && !w.threads.has(id)) await sql`update wcm_threads set messages = ${JSON.stringify(m)} where id = ${id}`;
  if (!rows.length) return;
  if (rows.length <= COPY_ROWS)
    return void (await sql`insert into wcm_threads ${sql(rows, ...THREAD_COLUMNS)} ${UPSERT(sql)}`);
  // Into an emptied table, COPY straight in; else COPY aside, then one upsert from there.
  if (w.cleared) await copyRows(sql, 'wcm_threads', rows);
  else {
    // Two large writes can share a PostgreSQL transaction (group commit): the second reuses the table.
    await sql`create temp table if not exists wcm_threads_in (like wcm_threads) on commit drop`;
    await sql`truncate wcm_threads_in`;
    await copyRows(sql, 'wcm_threads_in', rows);
    await sql`insert into wcm_threads select * from wcm_threads_in ${UPSERT(sql)}`;
  }
  // Fresh statistics at once, not whenever autovacuum comes by: without this the first page after
  // loading 1,000,000 threads took 12 s (1.2 s with it; the planner had no statistics for the table).
  await sql`analyze wcm_threads`;
}

/** A put replaces the thread; it keeps the row's messages when the transaction wrote none. */
const UPSERT = (sql: Sql) => sql`
  on conflict (id) do update set workspace_id = excluded.workspace_id, status = excluded.status,
    unread = excluded.unread, starred = excluded.starred, channels = excluded.channels,
    sort_at = excluded.sort_at, contact_id = excluded.contact_id, contact_email = excluded.contact_email,
    search = excluded.search, thread = excluded.thread,
    messages = coalesce(excluded.messages, wcm_threads.messages)`;

/** COPY's text format: a field with its backslashes, tabs and line breaks escaped; \N for null. */
function field(v: string | boolean | readonly string[] | null): string {
  if (v === null) return '\\N';
  if (typeof v === 'boolean') return v ? 't' : 'f';
  // An array literal quotes each element, escaping its quotes and backslashes (then COPY escapes again).
  const s = Array.isArray(v) ? `{${v.map((e) => `"${e.replace(/[\\"]/g, '\\$&')}"`).join(',')}}` : (v as string);
  return s.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** A row as a line of COPY's text format. */
export const copyLine = (r: ReturnType<typeof threadRow>) => THREAD_COLUMNS.map((c) => field(r[c])).join('\t') + '\n';

/** Many rows with COPY: one stream, no per-row statement. */
function copyRows(sql: Sql, table: string, rows: Array<ReturnType<typeof threadRow>>): Promise<void> {
  return copyLines(
    sql,
    table,
    (function* () {
      for (const r of rows) yield copyLine(r);
    })(),
  );
}

/** Lines made by copyLine into `table` with one COPY. */
export async function copyLines(sql: Sql, table: string, lines: Iterable<string>): Promise<void> {
  const stream = await sql`copy ${sql(table)} (${sql(THREAD_COLUMNS as unknown as string[])}) from stdin`.writable();
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  let chunk = '';
  for (const line of lines) {
    chunk += line;
    if (chunk.length > 1 << 20) {
      if (!stream.write(chunk)) await new Promise((r) => stream.once('drain', r));
      chunk = '';
    }
  }
  stream.end(chunk);
  await done;
}
