import type { Committer, Pending } from './commit.js';

/** What heldReplace needs of the store. */
export interface HeldReplace {
  committer: Pick<Committer, 'hold' | 'dropPending'>;
  /** The state was touched: a failure must read it back from disk. */
  changed(): boolean;
  /** The state is being read back: transactions are refused meanwhile. */
  reloading(): void;
  reload(dropped: Pending[], err: unknown): Promise<void>;
}

/**
 * Runs `write` (which replaces the state and its files: a bulk load, a restore) while the commit
 * loop holds the transactions arriving meanwhile. If it fails after touching the state, the state
 * is read back from disk and the held transactions, made on the state being dropped, are rejected.
 */
export async function heldReplace(host: HeldReplace, write: () => Promise<void>): Promise<void> {
  let dropped: Pending[] = [];
  const work = (async () => {
    try {
      await write();
    } catch (err) {
      // Before the writes held meanwhile are let go: they were made on the state being dropped.
      if (host.changed()) {
        host.reloading();
        dropped = host.committer.dropPending();
      }
      throw err;
    }
  })();
  try {
    await host.committer.hold(work);
  } catch (err) {
    if (host.changed()) await host.reload(dropped, err);
    throw err;
  }
}
