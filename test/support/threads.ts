import { joinThread, splitThread, type FullThread } from '../../src/store/threads.js';
import type { StoreEngine, WriteTx } from '../../src/store/engine/interface.js';
import { threadFilterPartition } from '../../src/store/indexes.js';
import type { ThreadRecord, Tx } from '../../src/store/records.js';

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

/** Writes a thread and its messages through the store's interface (either engine), as a load would. */
export async function writeThread(tx: WriteTx, t: FullThread): Promise<ThreadRecord> {
  const { thread, messages } = splitThread(t);
  await tx.put('thread_messages', messages);
  return tx.put('threads', thread);
}

/** Deletes a thread and its messages through the store's interface. */
export async function removeThread(tx: WriteTx, id: string): Promise<void> {
  await tx.delete('thread_messages', id);
  await tx.delete('threads', id);
}

/** A stored thread with its messages, through the store's interface, or undefined. */
export function dbFullThread(db: StoreEngine, id: string): Promise<FullThread | undefined> {
  return db.read(async (tx) => {
    const t = await tx.get('threads', id);
    return t && joinThread(t, await tx.get('thread_messages', id));
  });
}

/** Every thread of a workspace (open or closed: the inbox and closed views hold them all), through the store's interface. */
export function workspaceThreads(db: StoreEngine, workspace: string): Promise<ThreadRecord[]> {
  return db.read(async (tx) => {
    const out: ThreadRecord[] = [];
    for (const view of ['inbox', 'closed'])
      out.push(
        ...(
          await tx.page('threads', 'threadsByFilter', {
            partition: threadFilterPartition(workspace, view, undefined),
            limit: 1_000_000,
          })
        ).items,
      );
    return out;
  });
}
