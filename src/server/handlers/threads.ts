import { operations } from '../../contract/operations.js';
import { threadFilterPartition, type ThreadKeys } from '../../store/indexes.js';
import type { ThreadRecord } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import { implement, type Handler } from '../context.js';
import { JsonItem, pageIndex } from '../paging.js';
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

/**
 * `q` searches contact name, email, subject and the last message only (not earlier messages).
 * Records are frozen and replaced whole, so the lower-cased text can be cached per record.
 */
const searchText = new WeakMap<ThreadRecord, string>();
function haystack(t: ThreadRecord): string {
  let s = searchText.get(t);
  if (s === undefined) {
    // NUL between fields: a query never matches across two of them.
    s = [t.contact.name, t.contact.email, t.subject, t.last_message_body]
      .map((v) => v ?? '')
      .join('\u0000')
      .toLowerCase();
    searchText.set(t, s);
  }
  return s;
}

/**
 * Each thread's list item, serialized once and spliced into pages. Cached by what the index holds
 * (the thread, or its stub until the thread is first read): both are replaced in the index
 * whenever the thread is written, so an entry never outlives the version it was made from.
 */
const summaryJson = new WeakMap<ThreadKeys, JsonItem>();
function threadSummaryJson(store: Store, keys: ThreadKeys): JsonItem {
  let item = summaryJson.get(keys);
  if (!item)
    summaryJson.set(keys, (item = new JsonItem(JSON.stringify(threadSummary(store.get('threads', keys.id)!)))));
  return item;
}

const listThreads: Handler<typeof operations.listThreads> = ({ params, query, store }) => {
  const { view, channel, q } = query;
  const needle = q ? q.toLowerCase() : '';
  // View and channel pick one pre-filtered partition of the index; only `q` is checked per record,
  // and the scan stops once the page is full.
  return pageIndex(store.index('threadsByFilter'), threadFilterPartition(params.workspace, view, channel), {
    // A cursor belongs to one list: the workspace and every filter are part of its check.
    scope: JSON.stringify(['threads', params.workspace, view, channel ?? null, q ?? null]),
    cursor: query.cursor,
    limit: query.limit,
    filter: needle ? (t) => haystack(store.get('threads', t.id)!).includes(needle) : undefined,
    map: (t) => threadSummaryJson(store, t) as unknown as ReturnType<typeof threadSummary>,
  });
};

export const threadHandlers = [
  implement(operations.listThreads, listThreads),
  // The alias is the same function, so the two paths cannot drift apart.
  implement(operations.listInboxThreads, listThreads as unknown as Handler<typeof operations.listInboxThreads>),
  implement(operations.getThread, ({ params, store }) => {
    const t = store.get('threads', params.thread);
    // Another workspace's thread is as invisible as one that does not exist.
    if (!t || t.workspace_id !== params.workspace) throw notFound('thread_not_found', params.thread);
    const messages = store.get('thread_messages', t.id)?.messages ?? [];
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
