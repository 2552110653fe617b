import { operations } from '../../contract/operations.js';
import type { ReadTx } from '../../store/engine/interface.js';
import { threadFilterPartition } from '../../store/indexes.js';
import type { ThreadRecord } from '../../store/records.js';
import type { SortKey } from '../../store/sorted-index.js';
import { implement, type Handler } from '../../server/context.js';
import { cachedJson, decodeCursor, encodeCursor } from '../../server/paging.js';
import { notFound } from '../../server/problems.js';

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
 * One page of a view (and channel) partition of `threadsByFilter`, in list order (last message
 * newest first, then id), strictly after `after`. `q` is the page's `search`: the store matches it
 * on contact name, email, subject and the last message (src/store/search.ts), where the records
 * are, so a search that matches few threads reads no more than those.
 */
const threadPage = (tx: ReadTx, partition: string, q: string | undefined, after: SortKey | null, limit: number) =>
  tx.page('threads', 'threadsByFilter', { partition, after, limit, search: q || undefined });

const listThreads: Handler<typeof operations.listThreads> = async ({ params, query, db }) => {
  const { view, channel, q } = query;
  // A cursor belongs to one list: the workspace and every filter are part of its check.
  const scope = JSON.stringify(['threads', params.workspace, view, channel ?? null, q ?? null]);
  const after = query.cursor ? decodeCursor(scope, query.cursor) : null;
  // View and channel pick one pre-filtered partition of the index.
  const partition = threadFilterPartition(params.workspace, view, channel);
  const page = await db.read((tx) => threadPage(tx, partition, q, after, query.limit));
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
