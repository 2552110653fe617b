import path from 'node:path';
import { acquireLock } from './lock.js';
import { ownsDataDir, privateDir } from '../../private-dir.js';
import { fileExists, nodeFileLayer, SYNC_SLOTS, type FileLayer } from './files.js';
import { MEMORY_ONLY, type CollectionName, type Tx } from '../records.js';
import { loadBase, readConsistently, replayJournal } from './recover.js';
import { linkSaved, rebaseSaved, replaceAll, replaceCount, sameFile } from './restore.js';
import { BulkNotDurableError, heldReplace, type HeldReplace } from './held.js';
import { SAVED_HEADER_BYTES, SAVED_KEPT_BYTES } from './snapshot-writer.js';
import { State, StoreCorruptError, type Op } from './state.js';
import { Committer, defaultPipelineDepth, undoFailed } from './commit.js';
import { Compaction } from './compaction.js';
import { StoreView } from './view.js';
import { BULK_RECORDS, type StoreOptions } from './options.js';

export { StoreCorruptError, defaultPipelineDepth, type Tx };
export { BULK_RECORDS, type StoreOptions } from './options.js';
type BulkOptions = { background?: (durable: Promise<void>) => void };

/**
 * The durable JSON-file store. State lives in memory (state.ts); every transaction is appended to
 * a journal (`FILE.journal`, format in journal.ts) and is durable before its promise resolves:
 * transactions arriving while a write is in flight are written together, several batches in
 * flight at once (commit.ts). The journal is folded into the snapshot (`FILE`, atomic rename)
 * when it grows, beside the writes, and on close (compaction.ts).
 */
export class Store extends StoreView {
  private readonly files: FileLayer;
  readonly journalFile = `${this.file}.journal`;
  private readonly committer: Committer;
  private readonly compaction: Compaction;
  private releaseLock: (() => Promise<void>) | null = null;
  private closed = false;
  /** close() has begun (transactions are still taken until it has drained). */
  private closing = false;
  /** Why transactions are refused: a failed bulk load is being read back, or one in the background was not written. */
  private refused: Error | null = null;

  private constructor(
    file: string,
    private readonly options: StoreOptions,
  ) {
    super(file);
    const files = (this.files = options.files ?? nodeFileLayer);
    const journalFile = this.journalFile;
    this.compaction = new Compaction({
      files,
      file,
      journalFile,
      compactBytes: options.compactBytes ?? 64 * 1024 * 1024,
      take: () => ({ seq: this.seq, sections: this.state.snapshotSections() }),
      ready: () => this.committer.poke(),
    });
    this.committer = new Committer({
      files,
      journalFile,
      depth: Math.max(1, Math.min(SYNC_SLOTS, options.pipelineDepth ?? defaultPipelineDepth())),
      compaction: this.compaction,
      closing: () => this.closing,
      fail: (failed, err) => void (this.seq = undoFailed(this.state, failed, err) ?? this.seq),
    });
  }

  /** Opens (creating if needed) a data file for a server: takes the lock, recovers the journal. */
  static async open(file: string, options: StoreOptions = {}): Promise<Store> {
    const store = new Store(path.resolve(file), options);
    await privateDir(path.dirname(store.file), ownsDataDir(store.file));
    if (!options.readOnly) store.releaseLock = await acquireLock(store.file);
    try {
      await store.load();
      if (!options.readOnly) store.committer.journal = await store.files.openJournal(store.journalFile);
    } catch (err) {
      await store.releaseLock?.();
      throw err;
    }
    return store;
  }

  /** Opens a data file to read what a running server has acknowledged, without the lock. */
  static async openReadOnly(file: string, options: Omit<StoreOptions, 'readOnly'> = {}): Promise<Store> {
    const resolved = path.resolve(file);
    return readConsistently(
      resolved,
      () => new Store(resolved, { ...options, readOnly: true }),
      (store) => store.load(),
    );
  }

  private async load(): Promise<void> {
    const loaded = loadBase(this.state, this.file, await this.files.readIfExists(this.file));
    await replayJournal(this.files, this.journalFile, this.state, loaded, !!this.options.readOnly);
    this.seq = loaded.seq;
    // The journal is replayed into the maps, then every index is built in one bulk load.
    this.state.buildIndexes(loaded.stubLists, loaded.touched);
  }

  /**
   * Runs `fn` synchronously against the store, applying its writes at once, and resolves when they
   * are durable. If `fn` throws, its writes are undone and nothing is journaled. If the disk write
   * fails, every transaction not yet durable is undone and rejected.
   */
  transact<T>(fn: (tx: Tx) => T): Promise<T> {
    const refusal = this.refusal();
    if (refusal) return Promise.reject(refusal);
    const ops: Op[] = [];
    const undo: Op[] = [];
    let result: T;
    try {
      result = fn(this.state.tx(ops, undo));
    } catch (err) {
      // The indexes were not touched yet: undo the maps only.
      this.state.rollback(undo, false);
      return Promise.reject(err);
    }
    this.state.reindex(ops, undo);
    const [journaled, undone] = durableOnly(ops, undo);
    if (!journaled.length) return Promise.resolve(result);
    return new Promise<T>((resolve, reject) => {
      this.committer.take({ seq: ++this.seq, ops: journaled, undo: undone, resolve: () => resolve(result), reject });
    });
  }

  /**
   * @internal The JSON engine's commit (json/engine.ts): writes a transaction already applied to
   * the state (its `ops`, and the `undo` that reverts them, indexes included) to the journal, as
   * `transact` does; it resolves once they are durable, or they are undone and it rejects. Writes
   * to MEMORY_ONLY collections are not journaled: a transaction of nothing else resolves at once.
   */
  commitApplied(ops: Op[], undo: Op[]): Promise<void> {
    const [journaled, undone] = durableOnly(ops, undo);
    if (!journaled.length) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.committer.take({ seq: ++this.seq, ops: journaled, undo: undone, resolve, reject });
    });
  }

  /** @internal Why a write cannot be taken now (read-only, closed, reloading), or null. */
  writeRefusal(): Error | null {
    return this.refusal();
  }

  /**
   * Runs `fn` like `transact`, but for a load of many records (a seed, an import, a reset): its
   * writes are not journaled as one giant line but written as the snapshot, in the store's bulk
   * form (streamed, fsynced beside the journal, renamed over the old snapshot), and the journal is
   * emptied. A crash leaves the old snapshot with its journal, or the new snapshot (whose sequence
   * number is past every journal line), never a mix. Transactions arriving meanwhile are applied
   * after it and journaled once it is durable. If `fn` throws or the write fails, the state is read
   * back from disk, and the transactions made on top of it are rejected. `background`: it resolves
   * once the state is in memory, handing out the promise of the snapshot (see replacing for a failure).
   */
  async bulk<T>(fn: (tx: Tx) => T, opts: BulkOptions = {}): Promise<T> {
    const refusal = this.refusal();
    if (refusal) throw refusal;
    await this.drain();
    let result!: T;
    let applied = false;
    const written = new Set<CollectionName>();
    const done = heldReplace(
      this.replacing(() => written.size > 0, !!opts.background),
      async () => {
        result = fn(this.state.bulkTx(written));
        if (!written.size) return;
        this.state.rebuildIndexes(written);
        this.seq++;
        applied = true;
        await this.compaction.writeSnapshot(this.committer.journal);
        this.committer.emptied();
      },
    );
    // A failure in the background rejects with what every write is then refused with (replacing).
    if (applied && opts.background) opts.background(done.catch(() => Promise.reject(this.refused)));
    else await done;
    return result;
  }

  /**
   * A load of `records` writes (a seed, an import, a reset): above BULK_RECORDS through `bulk`,
   * else as one transaction (one journal line costs less than rewriting the snapshot).
   */
  loadMany<T>(records: number, fn: (tx: Tx) => T, opts: BulkOptions = {}): Promise<T> {
    return records > BULK_RECORDS ? this.bulk(fn, opts) : this.transact(fn);
  }

  /**
   * Replaces the whole state by `saved`, the bytes of a snapshot file (a named snapshot), keeping
   * the records of `keep`. The bytes become the snapshot as they are (a new header, past every
   * journal line, and `keep`'s sections added; fsynced, renamed over it) and are read as a cold
   * start reads them: no record is parsed or put one by one. Atomic and durable like `bulk`; a
   * small one (loadMany's threshold) is one transaction instead. Bytes that are not a readable
   * snapshot throw SnapshotError, and nothing changes.
   */
  async restore(saved: Buffer, keep: readonly CollectionName[], from?: string): Promise<void> {
    const refusal = this.refusal();
    if (refusal) throw refusal;
    // The saved file itself becomes the data file when it can (linkSaved), else a copy of it; not
    // when the data file is that file already (a reset to it before), which must stay untouched.
    const linkable = from !== undefined && !(await sameFile(from, this.file));
    await this.drain();
    const seq = this.seq + 1;
    const { buf, next, patched } = rebaseSaved(this.file, this.state, saved, seq, keep);
    const linked = patched && linkable;
    // A small one costs less as one journal line than as a new snapshot file.
    const writes = replaceCount(this.state, next, keep);
    if (writes <= BULK_RECORDS) return void (await this.loadMany(writes, (tx) => replaceAll(tx, next, keep)));
    await heldReplace(this.replacing(), async () => {
      this.state = next;
      this.seq = seq;
      const prefix = buf.subarray(0, SAVED_HEADER_BYTES + SAVED_KEPT_BYTES);
      if (!linked || !(await linkSaved(from, this.file, prefix))) await this.files.writeAtomic(this.file, buf);
      await this.committer.journal?.truncate(0);
      this.committer.emptied();
    });
  }

  /** Why a write cannot be taken now, if it cannot. */
  private refusal(): Error | null {
    if (this.options.readOnly) return new Error('This store is open read-only.');
    if (this.closed) return new Error('The store is closed.');
    return this.refused;
  }

  /**
   * How heldReplace reaches this store's commit loop (held.ts). After a failed bulk load the state
   * is read back from disk, and the transactions made on top of the lost state are rejected; one
   * in the `background` (already answered from) keeps its state, undoes them and refuses writes.
   */
  private replacing(changed = () => true, background = false): HeldReplace {
    const reloading = 'The store is reading its data file again after a failed bulk load; try again.';
    return {
      committer: this.committer,
      changed,
      reloading: (err) =>
        void (this.refused = background ? new BulkNotDurableError(this.file, err) : new Error(reloading)),
      reload: async (dropped, err) => {
        if (background) return void (this.seq = undoFailed(this.state, dropped, this.refused) ?? this.seq);
        try {
          for (const p of dropped) p.reject(err);
          this.state = new State(this.file);
          this.seq = 0;
          await this.load();
        } finally {
          this.refused = null;
        }
      },
    };
  }

  /**
   * Everything acknowledged so far is durable once this resolves, and no compaction is running
   * (one started beside the writes has replaced the journal, or failed).
   */
  drain(): Promise<void> {
    return this.compaction.settle(this.committer);
  }

  /**
   * Writes the whole state as the snapshot and empties the journal, now. Transactions arriving
   * meanwhile wait, and are written after it.
   */
  async compact(): Promise<void> {
    await this.drain();
    // Once the journal is emptied, a cut still pending from a failed write would pad it with zeros.
    await this.committer.hold(
      this.compaction.writeSnapshot(this.committer.journal).then(() => this.committer.emptied()),
    );
  }

  /**
   * Writes the records of `collections`, as they are now, as a snapshot file of their own (a named
   * snapshot): streamed, atomic; with room for `kept`'s records, which `restore` fills in.
   */
  async writeCopy(file: string, collections: ReadonlySet<CollectionName>, kept?: CollectionName): Promise<void> {
    await this.files.writeAtomic(file, this.copy(collections, kept));
  }

  /** Flushes, folds the journal into the snapshot, and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    await this.drain();
    this.closed = true;
    const journal = this.committer.journal;
    try {
      if (journal && (journal.size > 0 || !(await fileExists(this.file)))) await this.compaction.writeSnapshot(journal);
    } finally {
      await journal?.close();
      await this.releaseLock?.();
    }
  }
}

/**
 * A transaction's writes that go to the journal, with their undo (`undo[i]` reverts `ops[i]`):
 * all but those to MEMORY_ONLY collections, which stay as applied in memory (a failed disk write
 * undoes the rest of the transaction, not them).
 */
function durableOnly(ops: Op[], undo: Op[]): [Op[], Op[]] {
  if (!ops.some(([c]) => MEMORY_ONLY.has(c))) return [ops, undo];
  const keep = ops.map(([c]) => !MEMORY_ONLY.has(c));
  return [ops.filter((_, i) => keep[i]), undo.filter((_, i) => keep[i])];
}
