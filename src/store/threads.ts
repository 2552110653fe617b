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
  const { messages, ...rest } = t;
  const last = messages[messages.length - 1];
  const thread: ThreadRecord = {
    id: rest.id,
    workspace_id: rest.workspace_id,
    subject: rest.subject,
    status: rest.status,
    unread: rest.unread,
    starred: rest.starred,
    contact: rest.contact,
    channels: CHANNELS.filter((c) => messages.some((m) => m.channel === c)),
    message_count: messages.length,
    last_message_at: last?.created_at ?? null,
    last_message_body: last?.body ?? null,
  };
  return { thread, messages: { id: t.id, messages } };
}

/** The fixture's member order (docs/server.md: Store fixtures), so an export imports back byte for byte. */
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
