import type { Sql } from 'postgres';
import type { Channel, ThreadView } from '../../contract/enums.js';
import type { CollectionName, MessageRecord, ThreadMessagesRecord, ThreadRecord } from '../records.js';
import type { SortKey } from '../sorted-index.js';
import { searchFields, threadKey, type ThreadFilter, type ThreadRepository } from '../thread-repository.js';
import { joinThread } from '../threads.js';
import { perSeq } from './per-seq.js';

/**
 * Threads on PostgreSQL: one row per thread in `wcm_threads` (the thread and its messages as their
 * JSON text, plus the columns lists filter and sort on), read with keyset queries over partial
 * indexes, one per view. No process holds them: a million threads cost the database, not every
 * server's memory. Transactions write them like any record; the log routes those writes here
 * (thread-writes.ts) instead of the journal.
 */

/** The collections kept in `wcm_threads` rather than in the state and journal (one row holds both). */
export const THREAD_COLLECTIONS: ReadonlySet<CollectionName> = new Set<CollectionName>(['threads', 'thread_messages']);

/** The row's columns, in COPY order. */
export const THREAD_COLUMNS = [
  'id',
  'workspace_id',
  'status',
  'unread',
  'starred',
  'channels',
  'sort_at',
  'contact_id',
  'contact_email',
  'search',
  'thread',
  'messages',
] as const;

const VIEW_WHERE: Record<ThreadView, string> = {
  inbox: `status = 'open'`,
  unread: `status = 'open' and unread`,
  starred: `starred`,
  closed: `status = 'closed'`,
};

/**
 * Migration 5 (its statements, run with the others as one query): the table, its per-view
 * indexes, and named snapshots' copies.
 */
export const THREAD_TABLES = `create table wcm_threads (
    id text collate "C" primary key,
    workspace_id text collate "C" not null,
    status text not null,
    unread boolean not null,
    starred boolean not null,
    channels text[] not null,
    sort_at text collate "C" not null,
    contact_id text collate "C" not null,
    contact_email text not null,
    search text[] not null,
    thread text not null,
    messages text);
  ${
    // One partial index per view: a view's filter picks its index, and the keyset (sort_at, id) is a
    // range in it. A channel filter or `q` is checked on the rows read in order, up to the page's end.
    Object.entries(VIEW_WHERE)
      .map(
        ([name, where]) =>
          `create index wcm_threads_${name} on wcm_threads (workspace_id, sort_at desc, id desc) where ${where};`,
      )
      .join('\n  ')
  }
  create index wcm_threads_contact on wcm_threads (workspace_id, contact_id);
  create table wcm_named_threads (name text not null, like wcm_threads, primary key (name, id))`;

/** `sort_at`: the last message's time, or '' (below every time) for a thread without messages, as lists order them. */
const sortAt = (key: SortKey) => (key[0] ?? '') as string;

/** A thread as its row's values (messages: the record's JSON, or null to keep the row's). */
export function threadRow(t: ThreadRecord, m: ThreadMessagesRecord | null | undefined) {
  return {
    id: t.id,
    workspace_id: t.workspace_id,
    status: t.status,
    unread: t.unread,
    starred: t.starred,
    channels: t.channels,
    sort_at: t.last_message_at ?? '',
    contact_id: t.contact.id,
    contact_email: noNul(t.contact.email?.toLowerCase() ?? ''),
    // In their search form (no NUL: PostgreSQL's text holds none), as `q` is.
    search: searchFields(t),
    thread: JSON.stringify(t),
    messages: m ? JSON.stringify(m) : null,
  };
}

const noNul = (s: string) => s.replace(/\u0000/g, '');

const parse = (text: string) => Object.freeze(JSON.parse(text)) as ThreadRecord;
const messagesOf = (text: string | null): MessageRecord[] =>
  text ? (JSON.parse(text) as ThreadMessagesRecord).messages : [];

/**
 * The threads repository over `wcm_threads` (through `sql()`, the store's current connection pool).
 * Pages are cached per process, keyed by the store's sequence number `seq()`: every write (of
 * threads or anything else) moves it in every process on its next request, so a cached page is
 * never older than what the process has caught up with. A cache it may lose.
 */
export function pgThreads(sql: () => Sql, seq: () => number): ThreadRepository {
  const where = (q: Sql, workspace: string, view: ThreadView, channel?: Channel) =>
    q`workspace_id = ${workspace} and ${q.unsafe(VIEW_WHERE[view])} ${channel ? q`and ${channel} = any(channels)` : q``}`;
  /** One page from the table: a keyset range of the view's partial index, channel and `q` checked in order. */
  const fetchPage = async (f: ThreadFilter, after: SortKey | null, limit: number) => {
    const q = sql();
    const rows = await q<Array<{ thread: string }>>`
      select thread from wcm_threads
      where ${where(q, f.workspace, f.view, f.channel)}
        ${f.q ? q`and exists (select from unnest(search) s where strpos(s, ${f.q}) > 0)` : q``}
        ${after ? q`and (sort_at, id) < (${sortAt(after)}, ${String(after[1])})` : q``}
      order by sort_at desc, id desc
      limit ${limit + 1}`;
    return { threads: rows.slice(0, limit).map((r) => parse(r.thread)), more: rows.length > limit };
  };
  const pages = perSeq<{ threads: ThreadRecord[]; more: boolean }>(seq);
  // Every dashboard page shows the inbox's count: counted once per catch-up, not per page view.
  const counts = perSeq<number>(seq);
  return {
    async page(f, after, limit, map) {
      const key = JSON.stringify([f.workspace, f.view, f.channel ?? null, f.q ?? '', after, limit]);
      const hit = await pages(key, () => fetchPage(f, after, limit));
      return {
        items: hit.threads.map(map),
        last: hit.threads.length ? threadKey(hit.threads[hit.threads.length - 1]) : null,
        more: hit.more,
      };
    },
    async get(id) {
      const [row] = await sql()<Array<{ thread: string; messages: string | null }>>`
        select thread, messages from wcm_threads where id = ${id}`;
      return row && { thread: parse(row.thread), messages: messagesOf(row.messages) };
    },
    count(workspace, view, channel) {
      return counts(JSON.stringify([workspace, view, channel ?? null]), async () => {
        const q = sql();
        const [row] = await q<Array<{ n: number }>>`
          select count(*)::float8 as n from wcm_threads where ${where(q, workspace, view, channel)}`;
        return row.n;
      });
    },
    async size() {
      const [row] = await sql()<Array<{ n: number }>>`select count(*)::float8 as n from wcm_threads`;
      return row.n;
    },
    async ofContact(workspace, contact, except, max) {
      const email = noNul(contact.email?.toLowerCase() ?? '');
      const rows = await sql()<Array<{ thread: string }>>`
        select thread from wcm_threads
        where workspace_id = ${workspace} and id <> ${except}
          and (contact_id = ${contact.id} or (${email} <> '' and contact_email = ${email}))
        order by sort_at desc, id desc limit ${max}`;
      return rows.map((r) => parse(r.thread));
    },
    async *stream() {
      const rows = sql()<Array<{ thread: string; messages: string | null }>>`
        select thread, messages from wcm_threads order by sort_at desc, id desc`.cursor(500);
      for await (const batch of rows)
        for (const r of batch) {
          const t = parse(r.thread);
          yield joinThread(t, { id: t.id, messages: messagesOf(r.messages) });
        }
    },
    async taken(ids) {
      if (!ids.length) return [];
      const rows = await sql()<Array<{ id: string }>>`select id from wcm_threads where id = any(${ids as string[]})`;
      return rows.map((r) => r.id);
    },
  };
}
