import { promises as fs } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { acquireLock } from './lock.js';
import { nodeFileLayer, SYNC_SLOTS, type FileLayer, type JournalHandle } from './files.js';
import { INDEXES, SortedIndex, type IndexedRecord, type IndexName } from './indexes.js';
import { COLLECTIONS, LAZY_COLLECTIONS, type CollectionName, type RecordTypes } from './records.js';
import { encodeSnapshot, readSnapshot, SnapshotError, upgradeRecord, type SnapshotSection } from './snapshot.js';

export class StoreCorruptError extends Error {}

type Op = [CollectionName, string, unknown];
interface Pending {
  seq: number;
  ops: Op[];
  undo: Op[];
  resolve(): void;
  reject(err: unknown): void;
}

/** One batch in the commit pipeline: written after the batch before it, then synced. */
interface Flight {
  batch: Pending[];
  /** Journal offset of its first byte: where the file is cut back to if it fails. */
  start: number;
  /** Journal offset just past its last byte: everything before it is durable once it is acknowledged. */
  end: number;
  idx: number;
  state: 'running' | 'ok' | 'failed';
  err?: unknown;
  /**
   * How many durable writes had been started when this one succeeded. Concurrent syncs of one
   * file (through one description) report a writeback error to whichever checks first, so a write
   * that ran alongside this one may have taken the error for this batch's pages: it is
   * acknowledged only once those succeeded too (unless the layer has independentSyncs).
   */
  barrier: number;
  /** Never rejects. */
  settled: Promise<void>;
}

/**
 * An automatic compaction running beside the writes (pipelined journals only). The state at `seq`,
 * which is the journal's first `from` bytes, is encoded and written as the snapshot while later
 * batches go on being appended; the bytes of each are kept in `tail`. Once the snapshot is durable
 * (`ready`), the flush loop lets the batches in flight settle and replaces the journal by its tail.
 */
interface Background {
  from: number;
  tail: Array<{ start: number; buf: Buffer }>;
  /** The snapshot is being encoded or written. */
  running: boolean;
  /** The snapshot is durable; the journal's first `from` bytes are not needed any more. */
  ready: boolean;
  /** Settles when `running` ends (never rejects). */
  done: Promise<void>;
}

/** How long a compaction beside the writes encodes before it lets the event loop go round (ms). */
const BACKGROUND_SLICE_MS = 2;

/**
 * Batches being made durable at once, at most: one per thread of libuv's pool that can run a
 * write (UV_THREADPOOL_SIZE, 4 unless set; `wcm serve` sets 1), and no more than the journal's
 * write slots. A batch started while every thread is busy would only wait in the pool's queue,
 * sealed: what arrives meanwhile would go into yet another batch and another disk flush. With
 * one thread and depth 1, a batch takes everything that arrived during the write before it.
 */
export function defaultPipelineDepth(env: NodeJS.ProcessEnv = process.env): number {
  const threads = Number(env.UV_THREADPOOL_SIZE);
  return Number.isInteger(threads) && threads >= 1 ? Math.min(threads, SYNC_SLOTS) : SYNC_SLOTS;
}

/** Writes inside one transaction. Records are replaced whole, never mutated in place. */
export interface Tx {
  get<C extends CollectionName>(c: C, id: string): RecordTypes[C] | undefined;
  put<C extends CollectionName>(c: C, rec: RecordTypes[C]): RecordTypes[C];
  delete(c: CollectionName, id: string): void;
}

export interface StoreOptions {
  files?: FileLayer;
  /** Compact the journal into the snapshot when it grows past this many bytes. */
  compactBytes?: number;
  /** Batches in flight at once, 1 to 4 (default: defaultPipelineDepth()). */
  pipelineDepth?: number;
  /** Read-only: no lock, no journal writes, a torn tail is skipped rather than cut. */
  readOnly?: boolean;
}

/** Above this many writes to one collection in a transaction, its indexes are rebuilt instead. */
const BULK_REINDEX = 512;

/**
 * The JSON of one journal line (framed by buildBatch). `d` is the journal offset up to which
 * everything was durable (acknowledged) when the line was written: recovery tells a line that was
 * damaged after it was acknowledged from one a crash tore while it was still being synced.
 */
const frameJson = (p: Pending, durable: number): string => JSON.stringify({ s: p.seq, d: durable, o: p.ops });

/**
 * The durable JSON-file store. State lives in memory; every transaction is appended to a journal
 * (`FILE.journal`, one CRC-checked line per transaction) and fdatasync'd before its promise
 * resolves. Transactions arriving while a write is in flight are written together (group commit),
 * and with a file layer that has `writeDurable` several such batches are in flight at once
 * (see flushPipelined), acknowledged strictly in order.
 * The journal is folded into the snapshot (`FILE`, atomic rename) when it grows and on close.
 */
export class Store {
  /**
   * Records by collection and id. In a lazy collection (LAZY_COLLECTIONS) a value may still be a
   * number: the byte offset of the record's JSON in `lazyBytes`, parsed on first read.
   */
  private readonly data = new Map<CollectionName, Map<string, unknown>>();
  private readonly lazyBytes = new Map<CollectionName, Buffer>();
  /** Lazy collections with indexes: the members the indexes read (the stub of each record). */
  private readonly stubFields = new Map<CollectionName, readonly string[]>();
  private readonly indexes = new Map<IndexName, SortedIndex<{ id: string }>>();
  private readonly byCollection = new Map<CollectionName, SortedIndex<{ id: string }>[]>();
  private seq = 0;
  private snapshotSeq = 0;
  private pending: Pending[] = [];
  private flushing: Promise<void> | null = null;
  /** Wakes the pipelined flush loop (a batch settled, or transactions arrived). */
  private wake: (() => void) | null = null;
  private kickScheduled = false;
  private background: Background | null = null;
  /** After a compaction beside the writes failed: the journal size at which the next one may start. */
  private compactRetryAt = 0;
  private journal: JournalHandle | null = null;
  private releaseLock: (() => Promise<void>) | null = null;
  private closed = false;
  /** close() has begun (transactions are still taken until it has drained). */
  private closing = false;
  /**
   * After a failed write whose clean-up did not finish: the offset the journal must be cut back to
   * before anything else is written (bytes past it may remain).
   */
  private cutTo: number | null = null;
  private readonly files: FileLayer;

  private constructor(
    readonly file: string,
    private readonly options: StoreOptions,
  ) {
    this.files = options.files ?? nodeFileLayer;
    for (const c of COLLECTIONS) this.data.set(c, new Map());
    for (const [name, def] of Object.entries(INDEXES)) {
      if (LAZY_COLLECTIONS.has(def.collection)) {
        // The index is built from stubs at start-up: it must say which members it reads.
        const fields = (def as { fields?: readonly string[] }).fields;
        if (!fields) throw new Error(`index ${name} is on lazy collection ${def.collection} but does not list its \`fields\``);
        this.stubFields.set(def.collection, [...new Set([...(this.stubFields.get(def.collection) ?? []), ...fields])]);
      }
      const idx = new SortedIndex<{ id: string }>(def as never);
      this.indexes.set(name as IndexName, idx);
      const list = this.byCollection.get(def.collection) ?? [];
      list.push(idx);
      this.byCollection.set(def.collection, list);
    }
  }

  get journalFile(): string {
    return `${this.file}.journal`;
  }

  /** Opens (creating if needed) a data file for a server: takes the lock, recovers the journal. */
  static async open(file: string, options: StoreOptions = {}): Promise<Store> {
    const store = new Store(path.resolve(file), options);
    await fs.mkdir(path.dirname(store.file), { recursive: true });
    if (!options.readOnly) store.releaseLock = await acquireLock(store.file);
    try {
      await store.load();
      if (!options.readOnly) store.journal = await store.files.openJournal(store.journalFile);
    } catch (err) {
      await store.releaseLock?.();
      throw err;
    }
    return store;
  }

  /** Opens a data file to read what a running server has acknowledged, without the lock. */
  static async openReadOnly(file: string, options: Omit<StoreOptions, 'readOnly'> = {}): Promise<Store> {
    const resolved = path.resolve(file);
    // A compaction by the server between reading the snapshot and the journal would hide the
    // records it moved into the new snapshot: it shows as a gap, or as a snapshot replaced while
    // we read. Either way, read again from a fresh start.
    for (let attempt = 0; ; attempt++) {
      const store = new Store(resolved, { ...options, readOnly: true });
      const before = await snapshotIdentity(resolved);
      try {
        await store.load();
      } catch (err) {
        if (!(err instanceof GapError) || attempt >= 20) throw err;
        continue;
      }
      if ((await snapshotIdentity(resolved)) === before || attempt >= 20) return store;
    }
  }

  private async load(): Promise<void> {
    const snap = await this.files.readIfExists(this.file);
    const stubLists = new Map<CollectionName, Array<{ id: string }>>();
    if (snap && snap.length) {
      try {
        this.seq = this.snapshotSeq = readSnapshot(snap, {
          record: (c, rec) => this.data.get(c)!.set(rec.id, rec),
          lazy: (c, bytes, ids, offsets, stubs) => {
            const m = this.data.get(c)!;
            for (let i = 0; i < ids.length; i++) m.set(ids[i], offsets[i]);
            this.lazyBytes.set(c, bytes);
            if (stubs) stubLists.set(c, stubs);
          },
        });
      } catch (err) {
        if (!(err instanceof SnapshotError)) throw err;
        const hint = err.notOurs
          ? 'To load a fixture, use `--seed FILE` or `wcm local import FILE`.'
          : 'Restore it from a backup or an export.';
        throw new StoreCorruptError(`The data file ${this.file} ${err.message}. ${hint}`);
      }
    }
    // The journal is replayed into the maps, then every index is built in one bulk load: a lazy
    // collection's from the snapshot's stubs, except for records the journal wrote or deleted.
    const touched = await this.replay();
    for (const [c, list] of this.byCollection) {
      const m = this.data.get(c)!;
      const stubs = stubLists.get(c);
      let recs: Iterable<{ id: string }> = m.values() as Iterable<{ id: string }>;
      if (stubs) {
        const t = touched.get(c);
        recs = !t?.size ? stubs : [...stubs.filter((s) => !t.has(s.id)), ...[...t].flatMap((id) => (m.has(id) ? [m.get(id) as { id: string }] : []))];
      } else if (LAZY_COLLECTIONS.has(c) && [...m.values()].some((v) => typeof v === 'number')) {
        throw new StoreCorruptError(`The data file ${this.file} is damaged: collection ${c} has no index stubs. Restore it from a backup or an export.`);
      }
      for (const idx of list) idx.load(recs);
    }
  }

  /** Applies the journal to the maps (not the indexes); returns the ids it wrote in lazy collections. */
  private async replay(): Promise<Map<CollectionName, Set<string>>> {
    const touched = new Map<CollectionName, Set<string>>();
    const set = (c: CollectionName, id: string, value: unknown) => {
      if (value === null) this.data.get(c)!.delete(id);
      else this.data.get(c)!.set(id, value);
      if (!LAZY_COLLECTIONS.has(c)) return;
      let ids = touched.get(c);
      if (!ids) touched.set(c, (ids = new Set()));
      ids.add(id);
    };
    const buf = await this.files.readIfExists(this.journalFile);
    if (!buf || !buf.length) return touched;
    let offset = 0;
    let line = 0;
    let goodEnd = 0;
    let firstSeq: number | null = null;
    while (offset < buf.length) {
      const nl = buf.indexOf(10, offset);
      line++;
      const end = nl === -1 ? buf.length : nl;
      const text = buf.toString('utf8', offset, end);
      const parsed = nl === -1 ? null : parseFrame(text);
      if (!parsed) {
        // A bad line is the torn tail of a crash unless a line after it was written once it had
        // been acknowledged: then an acknowledged record is damaged, and that is corruption.
        // (The tail of a crash during a group commit can have holes: the kernel writes pages back
        // in any order until the sync returns, so lines after a lost page may have reached the disk.
        // None of them was acknowledged: a line is acknowledged only once every line before it is
        // durable.)
        const after = framesAfter(buf, nl === -1 ? buf.length : nl + 1, offset);
        if (after.writtenAfterAck) {
          throw new StoreCorruptError(
            `The journal ${this.journalFile} is corrupt at line ${line} (byte ${offset}): a record fails its checksum but later records are intact. ` +
              `Nothing was changed. Move the data files aside and restore from a backup or \`wcm local export\`.`,
          );
        }
        if (after.count && !this.options.readOnly) {
          process.emitWarning(
            `wcm: the journal ${this.journalFile} ends in a write torn by a crash (line ${line}, byte ${offset}); ` +
              `${after.count} record${after.count === 1 ? '' : 's'} after it, never acknowledged, ${after.count === 1 ? 'was' : 'were'} dropped with it.`,
          );
        }
        break;
      }
      if (firstSeq === null) firstSeq = parsed.s;
      if (firstSeq === parsed.s && parsed.s > this.snapshotSeq + 1) {
        if (this.options.readOnly) throw new GapError();
        throw new StoreCorruptError(
          `The journal ${this.journalFile} starts at record ${parsed.s} but the snapshot ends at ${this.snapshotSeq}: records are missing. Restore from a backup.`,
        );
      }
      if (parsed.s > this.seq) {
        for (const [c, id, value] of parsed.o) {
          if (!this.data.has(c)) throw new StoreCorruptError(`The journal ${this.journalFile} names an unknown collection \`${c}\` at line ${line}.`);
          // A journal written before threads kept their messages apart is upgraded as it is read.
          for (const [cc, v] of upgradeRecord(c, value)) set(cc, id, v);
        }
        this.seq = parsed.s;
      }
      offset = end + 1;
      goodEnd = offset;
    }
    if (goodEnd < buf.length && !this.options.readOnly) {
      // The torn tail of a write that was never acknowledged: cut it off.
      const fh = await fs.open(this.journalFile, 'r+');
      try {
        await fh.truncate(goodEnd);
        await fh.datasync();
      } finally {
        await fh.close();
      }
    }
    return touched;
  }

  get<C extends CollectionName>(c: C, id: string): RecordTypes[C] | undefined {
    const v = this.data.get(c)!.get(id);
    return (typeof v === 'number' ? this.materialize(c, id, v) : v) as RecordTypes[C] | undefined;
  }

  values<C extends CollectionName>(c: C): IterableIterator<RecordTypes[C]> {
    const m = this.data.get(c)!;
    if (!LAZY_COLLECTIONS.has(c)) return m.values() as IterableIterator<RecordTypes[C]>;
    return (function* (store: Store) {
      for (const [id, v] of m) yield (typeof v === 'number' ? store.materialize(c, id, v) : v) as RecordTypes[C];
    })(this);
  }

  /** Parses a lazy record from the snapshot's bytes, once: the parsed record replaces the offset. */
  private materialize(c: CollectionName, id: string, start: number): unknown {
    const buf = this.lazyBytes.get(c)!;
    let rec: { id?: unknown };
    try {
      rec = JSON.parse(buf.toString('utf8', start, buf.indexOf(10, start)));
    } catch (err) {
      throw new StoreCorruptError(`The data file ${this.file} is damaged: record \`${id}\` of ${c} is not valid JSON (${(err as Error).message}). Restore it from a backup or an export.`);
    }
    if (rec?.id !== id) throw new StoreCorruptError(`The data file ${this.file} is damaged: the record filed as \`${id}\` of ${c} has id ${JSON.stringify(rec?.id)}. Restore it from a backup or an export.`);
    Object.freeze(rec);
    this.data.get(c)!.set(id, rec);
    return rec;
  }

  /** The ids of a collection, without reading its lazy records (a reset deletes them unread). */
  ids(c: CollectionName): string[] {
    return [...this.data.get(c)!.keys()];
  }

  count(c: CollectionName): number {
    return this.data.get(c)!.size;
  }

  /** Entries of a lazy collection's index may be stubs: read the record with `get`. */
  index<N extends IndexName>(name: N): SortedIndex<IndexedRecord<N>> {
    return this.indexes.get(name) as never;
  }

  isEmpty(): boolean {
    return this.count('users') === 0 && this.count('workspaces') === 0 && this.count('tokens') === 0;
  }

  /** Sets one record (null deletes) in its map and, unless `indexes` is false, in its indexes. */
  private apply(c: CollectionName, id: string, value: unknown, indexes = true): unknown {
    const m = this.data.get(c)!;
    let old = m.get(id);
    // Undo and the indexes need the record itself, not its offset.
    if (typeof old === 'number') old = this.materialize(c, id, old);
    const idxs = indexes ? this.byCollection.get(c) : undefined;
    if (idxs && old !== undefined) for (const idx of idxs) idx.remove(old as { id: string });
    if (value === null) m.delete(id);
    else {
      m.set(id, value);
      if (idxs) for (const idx of idxs) idx.insert(value as { id: string });
    }
    return old === undefined ? null : old;
  }

  /**
   * Brings the indexes up to date with a transaction's writes. Small transactions update entry by
   * entry; big ones (a fixture import) rebuild the collection's indexes with one sort, because
   * entry-by-entry insertion into a sorted array is quadratic.
   */
  private reindex(ops: Op[], undo: Op[]): void {
    if (ops.length <= BULK_REINDEX) {
      // No collection can pass the bulk threshold: entry by entry, in order.
      for (let i = 0; i < ops.length; i++) {
        const idxs = this.byCollection.get(ops[i][0]);
        if (!idxs) continue;
        const before = undo[i][2];
        const after = ops[i][2];
        for (const idx of idxs) {
          if (before !== null) idx.remove(before as { id: string });
          if (after !== null) idx.insert(after as { id: string });
        }
      }
      return;
    }
    const perCollection = new Map<CollectionName, number>();
    for (const [c] of ops) perCollection.set(c, (perCollection.get(c) ?? 0) + 1);
    for (const [c, n] of perCollection) {
      const idxs = this.byCollection.get(c);
      if (!idxs) continue;
      if (n > BULK_REINDEX) {
        for (const idx of idxs) idx.reset(this.data.get(c)!.values() as never);
        continue;
      }
      for (let i = 0; i < ops.length; i++) {
        if (ops[i][0] !== c) continue;
        const [, , before] = undo[i];
        const [, , after] = ops[i];
        for (const idx of idxs) {
          if (before !== null) idx.remove(before as { id: string });
          if (after !== null) idx.insert(after as { id: string });
        }
      }
    }
  }

  /**
   * Runs `fn` synchronously against the store, applying its writes at once, and resolves when they
   * are durable. If `fn` throws, its writes are undone and nothing is journaled. If the disk write
   * fails, every transaction not yet durable is undone and rejected.
   */
  transact<T>(fn: (tx: Tx) => T): Promise<T> {
    if (this.options.readOnly) return Promise.reject(new Error('This store is open read-only.'));
    if (this.closed) return Promise.reject(new Error('The store is closed.'));
    const ops: Op[] = [];
    const undo: Op[] = [];
    const tx: Tx = {
      get: (c, id) => this.get(c, id),
      put: (c, rec) => {
        Object.freeze(rec);
        undo.push([c, rec.id, this.apply(c, rec.id, rec, false)]);
        ops.push([c, rec.id, rec]);
        return rec;
      },
      delete: (c, id) => {
        if (!this.data.get(c)!.has(id)) return;
        undo.push([c, id, this.apply(c, id, null, false)]);
        ops.push([c, id, null]);
      },
    };
    let result: T;
    try {
      result = fn(tx);
    } catch (err) {
      // The indexes were not touched yet: undo the maps only.
      this.rollback(undo, false);
      return Promise.reject(err);
    }
    this.reindex(ops, undo);
    if (!ops.length) return Promise.resolve(result);
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ seq: ++this.seq, ops, undo, resolve: () => resolve(result), reject });
      if (this.flushing) this.kick();
      else this.flushing = this.flush();
    });
  }

  private rollback(undo: Op[], indexes = true): void {
    for (let i = undo.length - 1; i >= 0; i--) {
      const [c, id, value] = undo[i];
      this.apply(c, id, value, indexes);
    }
  }

  /** Lets a waiting pipelined flush take new transactions, after the ones from this turn joined them. */
  private kick(): void {
    if (this.kickScheduled) return;
    this.kickScheduled = true;
    setImmediate(() => {
      this.kickScheduled = false;
      this.wake?.();
    });
  }

  private async flush(): Promise<void> {
    await new Promise<void>((r) => setImmediate(r));
    try {
      if (!this.journal) {
        // A journal replacement whose reopen failed (swapJournal): try again, else refuse the writes.
        try {
          this.journal = await this.files.openJournal(this.journalFile);
        } catch (err) {
          const failed = this.pending;
          this.pending = [];
          this.fail(failed, err);
          return;
        }
      }
      const j = this.journal;
      if (j.writeDurable) await this.flushPipelined(j as Required<JournalHandle>);
      else await this.flushSerial(j);
    } finally {
      this.flushing = null;
      // Transactions (or a finished compaction) that arrived after the loop's last look, whose
      // kick found no loop waiting: start again rather than leave them until the next write.
      if (this.pending.length || this.background?.ready) this.flushing = this.flush();
    }
  }

  /** Undoes `failed` (in seq order) in reverse and rejects them all. */
  private fail(failed: Pending[], err: unknown): void {
    if (!failed.length) return;
    for (let i = failed.length - 1; i >= 0; i--) this.rollback(failed[i].undo);
    this.seq = failed[0].seq - 1;
    for (const p of failed) p.reject(err);
  }

  private get compactBytes(): number {
    return this.options.compactBytes ?? 64 * 1024 * 1024;
  }

  /** Compacts now if the journal is past compactBytes, holding writes meanwhile (the serial path). */
  private async maybeCompact(): Promise<void> {
    if (this.journal!.size > this.compactBytes && !this.pending.length) {
      await this.writeSnapshot().catch((err) => process.emitWarning(`wcm: compaction failed: ${(err as Error).message}`));
    }
  }

  /**
   * Starts a compaction beside the writes if the journal is past compactBytes (see Background).
   * Called by the flush loop with nothing in flight or pending, so the state taken here is
   * exactly what the journal holds.
   */
  private startBackgroundCompaction(j: JournalHandle): void {
    // Not while closing: close compacts anyway, with everything.
    if (this.closing || this.background || j.size <= this.compactBytes || j.size < this.compactRetryAt) return;
    const sections = this.snapshotSections();
    const seq = this.seq;
    const bg: Background = { from: j.size, tail: [], running: true, ready: false, done: Promise.resolve() };
    this.background = bg;
    bg.done = (async () => {
      try {
        // Short slices: requests are being answered between them (10 ms slices held p99 at ~30 ms).
        await this.files.writeAtomic(this.file, await encodeSnapshot(seq, sections, BACKGROUND_SLICE_MS));
        this.snapshotSeq = seq;
        bg.ready = true;
      } catch (err) {
        // The journal still holds everything: the next compaction tries once it has grown again.
        this.background = null;
        this.compactRetryAt = bg.from + this.compactBytes;
        process.emitWarning(`wcm: compaction failed: ${(err as Error).message}`);
      } finally {
        bg.running = false;
      }
      if (bg.ready && this.background === bg) {
        if (this.flushing) this.wake?.();
        else this.flushing = this.flush();
      }
    })();
  }

  /**
   * Replaces the journal by the part the durable snapshot does not hold (nothing in flight): the
   * bytes of the batches written since the compaction started, written aside, synced and renamed
   * over it. A crash at any point leaves the old snapshot with the whole journal, or the new one
   * with either journal (replay skips records the snapshot holds). Returns the journal to write
   * to next, or null if it could not be opened again (the next flush tries).
   */
  private async swapJournal(j: JournalHandle): Promise<JournalHandle | null> {
    const bg = this.background!;
    this.background = null;
    const bufs: Buffer[] = [];
    let at = bg.from;
    for (const t of bg.tail) {
      if (t.start !== at) break;
      bufs.push(t.buf);
      at += t.buf.length;
    }
    // Not the whole tail (a failed cut is still pending): keep the journal as it is; replay skips
    // the records the snapshot holds, and a later compaction replaces it.
    if (at !== j.size || this.cutTo !== null) {
      this.compactRetryAt = j.size + this.compactBytes;
      return j;
    }
    try {
      await j.close();
      await this.files.writeAtomic(this.journalFile, bufs).then(
        () => (this.compactRetryAt = 0),
        (err) => {
          this.compactRetryAt = j.size + this.compactBytes;
          process.emitWarning(`wcm: the journal could not be replaced after a compaction (it keeps the records the snapshot holds): ${(err as Error).message}`);
        },
      );
      this.journal = await this.files.openJournal(this.journalFile);
    } catch (err) {
      this.journal = null;
      const failed = this.pending;
      this.pending = [];
      this.fail(failed, err);
      return null;
    }
    return this.journal;
  }

  /** One write-and-sync at a time, through `append` (a file layer without `writeDurable`). */
  private async flushSerial(j: JournalHandle): Promise<void> {
    while (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      try {
        // Cut whatever a failed append left past the last good record before writing after it:
        // a shorter record written over it would leave older whole records behind its end.
        if (this.cutTo !== null) {
          await j.truncate(this.cutTo);
          this.cutTo = null;
        }
        // Every earlier append finished (a failed one was cut off above): all of it is durable.
        await j.append(buildBatch(batch, j.size));
      } catch (err) {
        this.cutTo ??= j.size;
        // Undo this batch and everything queued behind it (it may build on this batch).
        const failed = [...batch, ...this.pending];
        this.pending = [];
        this.fail(failed, err);
        continue;
      }
      for (const p of batch) p.resolve();
      await this.maybeCompact();
    }
  }

  /**
   * Pipelined group commit: while a batch is being made durable, the next batches are written
   * after it (each in its own place, taken in seq order), up to `depth` batches in flight.
   * Acknowledgements stay in seq order: a batch resolves only once its own write and every earlier
   * batch's succeeded (and every write that ran alongside its own, see Flight.barrier). If batch k
   * fails, k and everything after it (in flight or queued) is undone in reverse order and
   * rejected, and once the in-flight operations settled the journal is cut back to k's start.
   * (A crash can leave later batches on disk without k: each line's `d` lets recovery drop them.)
   */
  private async flushPipelined(journal: Required<JournalHandle>): Promise<void> {
    let j = journal;
    const depth = Math.max(1, Math.min(SYNC_SLOTS, this.options.pipelineDepth ?? defaultPipelineDepth()));
    const inflight: Flight[] = [];
    /** Batches started so far (each flight's idx is its place in this count). */
    let nextIdx = 0;
    let end = j.size;
    /** Everything before this offset is durable: the journal as found, then each batch acknowledged. */
    let durable = j.size;
    for (;;) {
      // Start batches while there is room.
      // A compaction's snapshot is durable: start nothing more until the journal is replaced (below).
      while (this.pending.length && inflight.length < depth && !this.background?.ready) {
        if (!inflight.length) {
          if (this.cutTo !== null) {
            try {
              await j.truncate(this.cutTo);
              this.cutTo = null;
            } catch (err) {
              const failed = this.pending;
              this.pending = [];
              this.fail(failed, err);
              continue;
            }
          }
          end = durable = j.size;
        }
        const batch = this.pending;
        this.pending = [];
        const buf = buildBatch(batch, durable);
        const f: Flight = { batch, start: end, end: end + buf.length, idx: nextIdx++, state: 'running', barrier: 0, settled: Promise.resolve() };
        end += buf.length;
        this.background?.tail.push({ start: f.start, buf });
        f.settled = j
          .writeDurable(buf)
          .then(
            () => {
              f.state = 'ok';
              // Writes that report their errors independently cover this batch by themselves.
              f.barrier = j.independentSyncs ? 0 : nextIdx;
            },
            (err) => {
              f.state = 'failed';
              f.err = err;
            },
          )
          .finally(() => this.wake?.());
        inflight.push(f);
      }

      // Acknowledge from the front, in order.
      let failure: Flight | null = null;
      let failErr: unknown;
      while (inflight.length) {
        const head = inflight[0];
        if (head.state === 'running') break;
        if (head.state === 'failed') {
          failure = head;
          failErr = head.err;
          break;
        }
        let ready = true;
        for (let i = 1; i < inflight.length && inflight[i].idx < head.barrier; i++) {
          if (inflight[i].state === 'failed') {
            failure = head;
            failErr = inflight[i].err;
            break;
          }
          if (inflight[i].state === 'running') ready = false;
        }
        if (failure || !ready) break;
        inflight.shift();
        durable = head.end;
        for (const p of head.batch) p.resolve();
      }

      if (failure) {
        // Undo and reject the failed batch and everything after it (each may build on the one before).
        const failed = [...inflight.flatMap((f) => f.batch), ...this.pending];
        this.pending = [];
        this.fail(failed, failErr);
        await Promise.all(inflight.map((f) => f.settled));
        inflight.length = 0;
        if (this.background) this.background.tail = this.background.tail.filter((t) => t.start < failure.start);
        this.cutTo = failure.start;
        try {
          await j.truncate(failure.start);
          this.cutTo = null;
        } catch {
          // Cut before the next write (above).
        }
        continue;
      }

      if (!inflight.length) {
        if (this.background?.ready) {
          const next = await this.swapJournal(j);
          if (!next) return;
          j = next as Required<JournalHandle>;
          continue;
        }
        if (this.pending.length) continue;
        this.startBackgroundCompaction(j);
        return;
      }
      await new Promise<void>((r) => (this.wake = r));
      this.wake = null;
    }
  }

  /**
   * Everything acknowledged so far is durable once this resolves, and no compaction is running
   * (one started beside the writes has replaced the journal, or failed).
   */
  async drain(): Promise<void> {
    for (;;) {
      if (this.flushing) await this.flushing;
      else if (this.background?.running) await this.background.done;
      else if (this.background?.ready) this.flushing = this.flush();
      else return;
    }
  }

  /**
   * Writes the whole state as the snapshot and empties the journal, now. Transactions arriving
   * meanwhile wait, and are written after it.
   */
  async compact(): Promise<void> {
    await this.drain();
    const run = this.writeSnapshot();
    // While `flushing` is set, transact() queues into `pending` instead of starting a flush.
    this.flushing = run.then(
      () => undefined,
      () => undefined,
    );
    try {
      await run;
    } finally {
      this.flushing = null;
      if (this.pending.length) this.flushing = this.flush();
    }
  }

  /**
   * The state as the snapshot, then the journal emptied. The state is taken at once; encoding
   * yields to reads, and no journal write may happen until it is done (it runs inside the flush
   * loop, from compact(), or at close), so the journal holds nothing past `seq` when it is emptied.
   */
  private async writeSnapshot(): Promise<void> {
    // Only with no compaction running beside the writes (callers drain first). One whose snapshot
    // is durable but whose journal was not yet replaced is superseded: this one empties the journal.
    this.background = null;
    const sections = this.snapshotSections();
    const seq = this.seq;
    await this.files.writeAtomic(this.file, await encodeSnapshot(seq, sections));
    this.snapshotSeq = seq;
    await this.journal?.truncate(0);
  }

  /** The whole state, taken at once, as the sections encodeSnapshot writes. */
  private snapshotSections(): SnapshotSection[] {
    return COLLECTIONS.map((c) => {
      const m = this.data.get(c)!;
      if (!LAZY_COLLECTIONS.has(c)) return { collection: c, records: this.valuesInOrder(c) };
      // Records never read are copied as the bytes they were loaded from, with the stubs the
      // indexes hold for them.
      const bytes = this.lazyBytes.get(c);
      const fields = this.stubFields.get(c);
      if (!fields) return { collection: c, lazy: [...m], source: bytes };
      const stubs = new Map<string, { id: string }>();
      for (const idx of this.byCollection.get(c)!) for (const rec of idx.all()) if (typeof m.get(rec.id) === 'number') stubs.set(rec.id, rec);
      // A record in no partition of any index has no stub there: read it.
      const keyed = [...m].map(([id, v]) => (typeof v === 'number' ? (stubs.get(id) ?? (this.get(c, id) as { id: string })) : (v as { id: string })));
      const ordered = this.byCollection.get(c)![0].order(keyed);
      return {
        collection: c,
        lazy: ordered.map((k) => [k.id, m.get(k.id)] as [string, unknown]),
        source: bytes,
        stubs: ordered.map((k) => pick(k, fields)),
      };
    });
  }

  /**
   * A collection's records in the order of its first index (else as stored): how snapshots and
   * exports list them, the same after every restart. The next start-up's index load then sorts
   * lists that are sorted already (V8's sort makes one pass).
   */
  valuesInOrder<C extends CollectionName>(c: C): Array<RecordTypes[C]> {
    const recs = [...this.values(c)] as Array<RecordTypes[C]>;
    const idx = this.byCollection.get(c)?.[0];
    return idx ? (idx.order(recs as Array<{ id: string }>) as Array<RecordTypes[C]>) : recs;
  }

  /** Flushes, folds the journal into the snapshot, and releases the lock. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    await this.drain();
    this.closed = true;
    try {
      if (this.journal && (this.journal.size > 0 || !(await this.files.readIfExists(this.file)))) await this.writeSnapshot();
    } finally {
      await this.journal?.close();
      await this.releaseLock?.();
    }
  }
}

class GapError extends Error {}

function pick(rec: { id: string }, fields: readonly string[]): { id: string } {
  const out: Record<string, unknown> = { id: rec.id };
  for (const f of fields) out[f] = (rec as unknown as Record<string, unknown>)[f];
  return out as { id: string };
}

/** Changes whenever the snapshot is replaced (atomic rename gives it a new inode). */
async function snapshotIdentity(file: string): Promise<string> {
  const st = await fs.stat(file).catch(() => null);
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : 'none';
}

/**
 * A batch's journal lines, one per transaction: `CRC32-hex JSON\n`, the checksum over the JSON's
 * UTF-8 bytes. Written straight into one buffer (no buffer per line, no concatenation).
 */
function buildBatch(batch: Pending[], durable: number): Buffer {
  const jsons: string[] = new Array(batch.length);
  let total = 0;
  for (let i = 0; i < batch.length; i++) {
    jsons[i] = frameJson(batch[i], durable);
    total += Buffer.byteLength(jsons[i]) + 10;
  }
  const buf = Buffer.allocUnsafe(total);
  let at = 0;
  for (const json of jsons) {
    const len = buf.write(json, at + 9, 'utf8');
    buf.write(crc32(buf.subarray(at + 9, at + 9 + len)).toString(16).padStart(8, '0'), at, 'latin1');
    buf[at + 8] = 32;
    buf[at + 9 + len] = 10;
    at += len + 10;
  }
  return buf;
}

interface Frame {
  s: number;
  /** Missing in journals written before wcm recorded it. */
  d?: number;
  o: Op[];
}

function parseFrame(text: string): Frame | null {
  const sp = text.indexOf(' ');
  if (sp !== 8) return null;
  const json = text.slice(9);
  if (crc32(json).toString(16).padStart(8, '0') !== text.slice(0, 8)) return null;
  try {
    const v = JSON.parse(json);
    return typeof v?.s === 'number' && Array.isArray(v.o) && (v.d === undefined || typeof v.d === 'number') ? v : null;
  } catch {
    return null;
  }
}

/**
 * The intact lines after a bad one at `bad`, and whether any of them was written once the bad
 * line had been acknowledged (its `d` past `bad`, or no `d` at all: a journal from before wcm
 * recorded it, which cannot tell).
 */
function framesAfter(buf: Buffer, from: number, bad: number): { count: number; writtenAfterAck: boolean } {
  let offset = from;
  let count = 0;
  let writtenAfterAck = false;
  while (offset < buf.length) {
    const nl = buf.indexOf(10, offset);
    if (nl === -1) break;
    const f = parseFrame(buf.toString('utf8', offset, nl));
    if (f) {
      count++;
      if (f.d === undefined || f.d > bad) writtenAfterAck = true;
    }
    offset = nl + 1;
  }
  return { count, writtenAfterAck };
}
