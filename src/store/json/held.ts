import type { Committer, Pending } from './commit.js';
import { StoreUnavailableError } from '../engine/interface.js';

/** What heldReplace needs of the store. */
export interface HeldReplace {
  committer: Pick<Committer, 'hold' | 'dropPending'>;
  /** The state was touched: a failure must read it back from disk. */
  changed(): boolean;
  /** The state is being read back (or kept, not durable: a load in the background): transactions are refused meanwhile. */
  reloading(err: unknown): void;
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
        host.reloading(err);
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

/**
 * A bulk load answered from memory before its snapshot was durable (`wcm serve --seed`) whose
 * snapshot then failed: the records are served, but they are not on disk, so a write journaled on
 * top of them could not be replayed. Writes are refused (503) until a restart loads them again.
 */
export class BulkNotDurableError extends StoreUnavailableError {
  constructor(file: string, cause: unknown) {
    const why = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    super(`the data file could not be written: ${why}`);
    // Retrying does not help: the records are written again only by a restart.
    this.retryAfter = undefined;
    this.message =
      `The seeded records could not be written to ${file} (${(cause as Error).message}): ` +
      `they are served from memory but are not on disk, so writes are refused. ` +
      `Free disk space (or fix the cause) and restart \`wcm serve --seed …\`: the data file does not hold the seed, so it is loaded again.`;
  }
}
