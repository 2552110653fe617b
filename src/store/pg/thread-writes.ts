import type { Sql } from 'postgres';
import type { ThreadMessagesRecord, ThreadRecord } from '../records.js';
import { COPY_ROWS, copyRows } from './copy.js';
import type { TableWrites } from './write-set.js';
import { THREAD_COLUMNS, threadRow } from './threads.js';

type Threads = Map<string, ThreadRecord | null>;
type Messages = Map<string, ThreadMessagesRecord | null>;

/**
 * Sends (without waiting: a connection runs them in order) the deletes of a transaction's thread
 * writes, and the updates of messages written without their thread (none of our writers do).
 */
function sendDeletes(sql: Sql, w: TableWrites, threads: Threads, messages: Messages): Array<Promise<unknown>> {
  const sent: Array<Promise<unknown>> = [];
  if (w.cleared.has('threads')) sent.push(sql`delete from wcm_threads`.execute());
  const gone = [...threads].filter(([, t]) => t === null).map(([id]) => id);
  if (gone.length) sent.push(sql`delete from wcm_threads where id = any(${gone})`.execute());
  for (const [id, m] of messages)
    if (m && !threads.has(id))
      sent.push(sql`update wcm_threads set messages = ${JSON.stringify(m)} where id = ${id}`.execute());
  return sent;
}

const writesOf = (w: TableWrites) => ({
  threads: (w.writes.get('threads') ?? new Map()) as Threads,
  messages: (w.writes.get('thread_messages') ?? new Map()) as Messages,
});

const rowsOf = (threads: Threads, messages: Messages) =>
  [...threads.values()].filter((t): t is ThreadRecord => t !== null).map((t) => threadRow(t, messages.get(t.id)));

/**
 * The statements of a transaction's thread writes when they are few, sent now in order (the caller
 * awaits them, and may send COMMIT behind them); null when they are many (applyThreadWrites).
 */
export function sendThreadWrites(sql: Sql, w: TableWrites): Array<Promise<unknown>> | null {
  const { threads, messages } = writesOf(w);
  if (!threads.size && !messages.size && !w.cleared.has('threads')) return [];
  const rows = rowsOf(threads, messages);
  if (rows.length > COPY_ROWS) return null;
  const sent = sendDeletes(sql, w, threads, messages);
  if (rows.length) sent.push(sql`insert into wcm_threads ${sql(rows, ...THREAD_COLUMNS)} ${UPSERT(sql)}`.execute());
  return sent;
}

/** Applies a transaction's writes of threads and their messages to `wcm_threads`, inside the caller's transaction. */
export async function applyThreadWrites(sql: Sql, w: TableWrites): Promise<void> {
  const few = sendThreadWrites(sql, w);
  if (few) return void (await Promise.all(few));
  const { threads, messages } = writesOf(w);
  const cleared = w.cleared.has('threads');
  await Promise.all(sendDeletes(sql, w, threads, messages));
  const rows = rowsOf(threads, messages);
  // Into an emptied table, COPY straight in; else COPY aside, then one upsert from there.
  if (cleared) await copyRows(sql, 'wcm_threads', THREAD_COLUMNS, rows);
  else {
    // Two large writes can share a PostgreSQL transaction (group commit): the second reuses the table.
    await sql`create temp table if not exists wcm_threads_in (like wcm_threads) on commit drop`;
    await sql`truncate wcm_threads_in`;
    await copyRows(sql, 'wcm_threads_in', THREAD_COLUMNS, rows);
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
