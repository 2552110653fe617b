import { CHANNELS } from '../contract/enums.js';
import type { MessageRecord, ThreadMessagesRecord, ThreadRecord, Tx } from './records.js';

/** A thread with its messages inline, as fixtures and `getThread` have it. */
export type FullThread = Omit<ThreadRecord, 'channels' | 'message_count' | 'last_message_at' | 'last_message_body'> & {
  /** Oldest first. */
  messages: MessageRecord[];
};

/**
 * The two records a thread is stored as: the thread with what lists need of its messages (kept in
 * memory, indexed), and its messages apart (`thread_messages`, parsed only when read). Every
 * write of a thread goes through here, so the derived fields cannot drift from the messages.
 */
export function splitThread(t: FullThread): { thread: ThreadRecord; messages: ThreadMessagesRecord } {
  const messages = t.messages;
  const last = messages[messages.length - 1];
  const thread = threadRecord(t, {
    channels: CHANNELS.filter((c) => messages.some((m) => m.channel === c)),
    count: messages.length,
    last,
  });
  return { thread, messages: { id: t.id, messages } };
}

/** What a thread's record says of its messages (the messages themselves may be bytes, fixtures/parse.ts). */
export interface MessagesSummary {
  channels: ThreadRecord['channels'];
  count: number;
  last: Pick<MessageRecord, 'created_at' | 'body'> | undefined;
}

/** A thread's record, from the thread and what it says of its messages. */
export function threadRecord(t: Omit<FullThread, 'messages'>, m: MessagesSummary): ThreadRecord {
  return {
    id: t.id,
    workspace_id: t.workspace_id,
    subject: t.subject,
    status: t.status,
    unread: t.unread,
    starred: t.starred,
    contact: t.contact,
    channels: m.channels,
    message_count: m.count,
    last_message_at: m.last?.created_at ?? null,
    last_message_body: m.last?.body ?? null,
  };
}

/** A fixture's thread with its messages oldest first (a fixture may list them in any order). */
export function sortedMessages(t: FullThread): FullThread {
  const m = t.messages;
  let sorted = true;
  for (let i = 1; i < m.length && sorted; i++) sorted = m[i - 1].created_at <= m[i].created_at;
  // The sort is stable: messages already in order stay as they are (the usual case, not copied).
  if (sorted) return t;
  return {
    ...t,
    messages: [...m].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0)),
  };
}

/**
 * What packing uses of LazyLines (json/lazy-lines.ts), named here: that module imports the snapshot
 * writer, whose reader imports this one.
 */
interface MessageLines {
  readonly ids: string[];
  readonly offsets: number[];
  add(rec: ThreadMessagesRecord): void;
  bytes(): Buffer;
  record(i: number): { id: string };
}

/** A fixture's thread as a bulk load keeps it as it reads: its record, and its messages as a line of `lines`. */
export function packThread(t: FullThread, lines: MessageLines): ThreadRecord {
  const { thread, messages } = splitThread(sortedMessages(t));
  lines.add(messages);
  return thread;
}

/** The fixture's member order (docs/fixtures.md), so an export imports back byte for byte. */
export function joinThread(t: ThreadRecord, m: ThreadMessagesRecord | undefined): FullThread {
  return {
    id: t.id,
    workspace_id: t.workspace_id,
    subject: t.subject,
    status: t.status,
    unread: t.unread,
    starred: t.starred,
    contact: t.contact,
    messages: m?.messages ?? [],
  };
}

/** Writes a thread and its messages in one transaction. */
export function putThread(tx: Tx, t: FullThread): ThreadRecord {
  const { thread, messages } = splitThread(t);
  tx.put('thread_messages', messages);
  return tx.put('threads', thread);
}

/** Writes packed threads' messages (packThread): as the lines they are when the store takes them so. */
export function putMessageLines(tx: Tx, lines: MessageLines): void {
  if (tx.putLines?.('thread_messages', lines)) return;
  for (let i = 0; i < lines.ids.length; i++) tx.put('thread_messages', lines.record(i) as ThreadMessagesRecord);
}
