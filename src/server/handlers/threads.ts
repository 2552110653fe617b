import { operations } from '../../contract/operations.js';
import type { ReadTx } from '../../store/engine/interface.js';
import { INDEXES, threadFilterPartition } from '../../store/indexes.js';
import type { ThreadRecord } from '../../store/records.js';
import type { SortKey } from '../../store/sorted-index.js';
import { implement, type Handler } from '../context.js';
import { cachedJson, decodeCursor, encodeCursor } from '../paging.js';
import { notFound } from '../problems.js';

/** Longest `last_message_preview`, in characters (the ellipsis included). */
export const PREVIEW_LENGTH = 140;

/** One line of the last message: whitespace runs collapse, long bodies end in `…`. */
export function preview(body: string | null): string | null {
  if (body === null) return null;
  const chars = Array.from(body.replace(/\s+/g, ' ').trim());
  return chars.length <= PREVIEW_LENGTH
    ? chars.join('')
    : `${chars
        .slice(0, PREVIEW_LENGTH - 1)
        .join('')
        .trimEnd()}…`;
}

/** A thread as lists show it: the contact, its channels (in CHANNELS order), state, and a preview of the last message. */
export function threadSummary(t: ThreadRecord) {
  return {
    id: t.id,
    contact: { id: t.contact.id, name: t.contact.name, email: t.contact.email, phone: t.contact.phone },
    channels: t.channels,
    subject: t.subject,
    status: t.status,
    unread: t.unread,
    starred: t.starred,
    last_message_at: t.last_message_at,
    last_message_preview: preview(t.last_message_body),
    message_count: t.message_count,
  };
}

/** Each thread's list item, serialized once per record version and spliced into pages (paging.ts). */
const summaryJson = cachedJson(threadSummary);

/**
 * What `q` is matched as: lower-cased, without NUL characters (PostgreSQL's text holds none, so
 * both stores drop them from the query and the fields alike and match the same threads).
 */
export const searchForm = (s: string): string => s.toLowerCase().replace(/\u0000/g, '');

/**
 * What `q` searches: contact name, email, subject and the last message (not earlier messages),
 * each in its search form, NUL between them so a query never matches across two fields. Records
 * are frozen and replaced whole, so the text is cached per record.
 */
const haystacks = new WeakMap<ThreadRecord, string>();
function haystack(t: ThreadRecord): string {
  let s = haystacks.get(t);
  if (s === undefined) {
    s = [t.contact.name, t.contact.email, t.subject, t.last_message_body]
      .map((v) => searchForm(v ?? ''))
      .join('\u0000');
    haystacks.set(t, s);
  }
  return s;
}

/** Rows read per step while `q` turns threads away: from a page's worth up to this many. */
const SEARCH_BATCH_MAX = 1024;

/**
 * One page of a view (and channel) partition of `threadsByFilter`, in list order (last message
 * newest first, then id), strictly after `after`. Without `q` the partition is the list: one
 * keyset read. With `q` the partition's threads are read in order, in growing batches, and matched
 * on their whole records (the index holds only its sort and filter members), until the page and
 * one more match are found or the partition ends.
 */
async function threadPage(
  tx: ReadTx,
  partition: string,
  q: string,
  after: SortKey | null,
  limit: number,
): Promise<{ items: ThreadRecord[]; last: SortKey | null; more: boolean }> {
  if (!q) return tx.page('threads', 'threadsByFilter', { partition, after, limit });
  const found: ThreadRecord[] = [];
  let from = after;
  let batch = Math.max(limit + 1, 64);
  for (;;) {
    const page = await tx.page('threads', 'threadsByFilter', { partition, after: from, limit: batch });
    for (const t of page.items) {
      if (!haystack(t).includes(q)) continue;
      found.push(t);
      if (found.length > limit) break;
    }
    if (found.length > limit || !page.more) break;
    from = page.last;
    batch = Math.min(batch * 2, SEARCH_BATCH_MAX);
  }
  const more = found.length > limit;
  const items = more ? found.slice(0, limit) : found;
  const lastRec = items[items.length - 1];
  return { items, last: lastRec ? INDEXES.threadsByFilter.key(lastRec) : null, more };
}

const listThreads: Handler<typeof operations.listThreads> = async ({ params, query, db }) => {
  const { view, channel, q } = query;
  // A cursor belongs to one list: the workspace and every filter are part of its check.
  const scope = JSON.stringify(['threads', params.workspace, view, channel ?? null, q ?? null]);
  const after = query.cursor ? decodeCursor(scope, query.cursor) : null;
  // View and channel pick one pre-filtered partition of the index.
  const partition = threadFilterPartition(params.workspace, view, channel);
  const page = await db.read((tx) => threadPage(tx, partition, q ? searchForm(q) : '', after, query.limit));
  return {
    items: page.items.map(summaryJson),
    next_cursor: page.more && page.last ? encodeCursor(scope, page.last) : null,
  };
};

export const threadHandlers = [
  implement(operations.listThreads, listThreads),
  // The alias is the same function, so the two paths cannot drift apart.
  implement(operations.listInboxThreads, listThreads as unknown as Handler<typeof operations.listInboxThreads>),
  implement(operations.getThread, async ({ params, db }) => {
    const [t, stored] = await db.read((tx) =>
      Promise.all([tx.get('threads', params.thread), tx.get('thread_messages', params.thread)]),
    );
    // Another workspace's thread is as invisible as one that does not exist.
    if (!t || t.workspace_id !== params.workspace) throw notFound('thread_not_found', params.thread);
    const messages = stored?.messages ?? [];
    return {
      ...threadSummary(t),
      messages: messages.map((m) => ({
        id: m.id,
        channel: m.channel,
        direction: m.direction,
        body: m.body,
        created_at: m.created_at,
      })),
    };
  }),
];
