import { operations } from '../../contract/operations.js';
import type { ThreadRecord } from '../../store/records.js';
import { implement, type Handler } from '../context.js';
import { cachedJson, decodeCursor, encodeCursor } from '../paging.js';
import { notFound } from '../problems.js';
import { searchForm } from '../../store/thread-repository.js';

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

const listThreads: Handler<typeof operations.listThreads> = async ({ params, query, store }) => {
  const { view, channel, q } = query;
  // A cursor belongs to one list: the workspace and every filter are part of its check.
  const scope = JSON.stringify(['threads', params.workspace, view, channel ?? null, q ?? null]);
  const after = query.cursor ? decodeCursor(scope, query.cursor) : null;
  const page = await store.threads.page(
    { workspace: params.workspace, view, channel, q: q ? searchForm(q) : '' },
    after,
    query.limit,
    summaryJson,
  );
  return { items: page.items, next_cursor: page.more && page.last ? encodeCursor(scope, page.last) : null };
};

export const threadHandlers = [
  implement(operations.listThreads, listThreads),
  // The alias is the same function, so the two paths cannot drift apart.
  implement(operations.listInboxThreads, listThreads as unknown as Handler<typeof operations.listInboxThreads>),
  implement(operations.getThread, async ({ params, store }) => {
    const found = await store.threads.get(params.thread);
    // Another workspace's thread is as invisible as one that does not exist.
    if (!found || found.thread.workspace_id !== params.workspace) throw notFound('thread_not_found', params.thread);
    const { thread: t, messages } = found;
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
