import type { ThreadRepository } from '../../src/store/thread-repository.js';
import type { Tx } from '../../src/store/records.js';
import { joinThread, type FullThread } from '../../src/store/threads.js';

/** Deletes a thread and its messages (the server never deletes one; tests do). */
export function deleteThread(tx: Tx, id: string): void {
  tx.delete('thread_messages', id);
  tx.delete('threads', id);
}

/** A stored thread with its messages, or undefined. */
export function getFullThread(store: Pick<Tx, 'get'>, id: string): FullThread | undefined {
  const t = store.get('threads', id);
  return t && joinThread(t, store.get('thread_messages', id));
}

/** A stored thread with its messages, through the store's threads repository (either store). */
export async function readFullThread(
  store: { threads: ThreadRepository },
  id: string,
): Promise<FullThread | undefined> {
  const found = await store.threads.get(id);
  return found && joinThread(found.thread, { id, messages: found.messages });
}

/** Every stored thread with its messages, in export order, through the repository. */
export async function allThreads(store: { threads: ThreadRepository }): Promise<FullThread[]> {
  const out: FullThread[] = [];
  for await (const t of store.threads.stream()) out.push(t);
  return out;
}
