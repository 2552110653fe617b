/*
 * The JSON engine: the store's interface (engine/interface.ts) over the durable JSON-file store
 * (store.ts), whose core is unchanged underneath: the state in memory, the journal, group commit,
 * compaction, snapshots and torn-tail detection. A write transaction applies its writes to the
 * state as it goes (so its reads see them, indexes included) and, once `fn` returns, is handed to
 * the journal as one line; it resolves when that is durable, as `store.transact` does.
 *
 * Write transactions run one at a time (the next one's `fn` starts once the last one's returned,
 * not once it is durable: group commit still batches them). A read that arrives while a write's
 * `fn` is running waits for it, so nobody sees a transaction's writes before it ended. Nothing
 * conflicts, so `fn` runs exactly once.
 */
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { privateDir } from '../../private-dir.js';
import { FixtureError, parseFixture, putRecords, recordCount } from '../fixtures/import.js';
import { INDEXES, LOOKUPS, LOOKUPS_OF, type IndexedRecord, type IndexName, type LookupName } from '../indexes.js';
import { COLLECTIONS, LAZY_COLLECTIONS, type CollectionName, type RecordTypes } from '../records.js';
import { isSearched, matchesSearch, type SearchedCollection } from '../search.js';
import { isSnapshotFile, SnapshotError } from './snapshot.js';
import { scanEntries, type SortedIndex } from '../sorted-index.js';
import type { Op, State } from './state.js';
import { Store, type StoreOptions } from './store.js';
import {
  checkLoad,
  CLOCK_OFFSET_SETTING,
  ConflictError,
  offsetOf,
  type IndexOf,
  type Loaded,
  type LoadOptions,
  type LookupOf,
  type Page,
  type PageQuery,
  type ReadTx,
  type SnapshotInfo,
  type Snapshots,
  type StoreEngine,
  type WriteTx,
  SNAPSHOT_REPLACED,
  SNAPSHOT_SAVED,
  SnapshotUnreadableError,
} from '../engine/interface.js';

export interface JsonEngineOptions {
  /** The process's clock, epoch ms (tests move it); `tx.now()` adds the emulator's offset. */
  clock?: () => number;
}

export class JsonEngine implements StoreEngine {
  readonly kind = 'json' as const;
  /** Settles when the write transaction running now (if any) has returned from `fn`. */
  private writing: Promise<void> | null = null;
  private reader: { state: State; tx: ReadTx } | null = null;
  private readonly clock: () => number;

  constructor(
    readonly store: Store,
    options: JsonEngineOptions = {},
  ) {
    this.clock = options.clock ?? Date.now;
  }

  /** Opens (creating if needed) a data file, as `Store.open` does, behind the interface. */
  static async open(file: string, options: StoreOptions & JsonEngineOptions = {}): Promise<JsonEngine> {
    return new JsonEngine(await Store.open(file, options), options);
  }

  async read<T>(fn: (tx: ReadTx) => Promise<T>): Promise<T> {
    while (this.writing) await this.writing;
    const state = this.store.state;
    // A read keeps nothing of its own: one tx per state (a restore replaces the state).
    if (this.reader?.state !== state) this.reader = { state, tx: new JsonReadTx(state, this.clock) };
    return fn(this.reader.tx);
  }

  async write<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> {
    while (this.writing) await this.writing;
    const refusal = this.store.writeRefusal();
    if (refusal) throw refusal;
    const state = this.store.state;
    const tx = new JsonWriteTx(state, this.clock);
    let done!: () => void;
    this.writing = new Promise<void>((r) => (done = r));
    let durable: Promise<void>;
    let result: T;
    try {
      try {
        result = await fn(tx);
        tx.check();
        if (this.store.state !== state)
          throw new Error('The store was replaced (a reset or a restore) during the transaction; try again.');
      } catch (err) {
        tx.rollback();
        throw err;
      }
      // Its writes go to the journal in the order they were applied: before the next transaction starts.
      tx.indexes();
      durable = this.store.commitApplied(tx.ops, tx.undo);
    } finally {
      this.writing = null;
      done();
    }
    await durable;
    return result;
  }

  async load(
    collections: readonly CollectionName[],
    records: Iterable<Loaded>,
    options: LoadOptions = {},
  ): Promise<boolean> {
    const byCollection = checkLoad(collections, records);
    const also = [...(options.also ?? [])];
    while (this.writing) await this.writing;
    let done!: () => void;
    this.writing = new Promise<void>((r) => (done = r));
    try {
      const refusal = this.store.writeRefusal();
      if (refusal) throw refusal;
      // One process holds the data file, and loads run one at a time here: the check cannot race.
      if (options.ifEmpty && !this.store.isEmpty()) return false;
      let n = also.length;
      for (const [c, list] of byCollection) n += list.length + this.store.count(c);
      // Store.loadMany: above BULK_RECORDS written as the snapshot, else one journal line.
      await this.store.loadMany(
        n,
        (tx) => {
          for (const c of collections) tx.clear(c);
          for (const [c, list] of byCollection) for (const rec of list) tx.put(c, rec as never);
          for (const [c, rec] of also) tx.put(c, rec as never);
        },
        { background: options.background },
      );
      return true;
    } finally {
      this.writing = null;
      done();
    }
  }

  readonly snapshots: Snapshots = new JsonSnapshots(this, (fn) => this.exclusive(fn));

  /** Runs `fn` with no write transaction running beside it (a snapshot's save or restore). */
  private async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.writing) await this.writing;
    let done!: () => void;
    this.writing = new Promise<void>((r) => (done = r));
    try {
      return await fn();
    } finally {
      this.writing = null;
      done();
    }
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

/** A name as a file name: the control plane checks names (letters, digits, `.`, `_`, `-`); this refuses a path. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** What a restore keeps of the state on the JSON file: the settings (named snapshots are files, not records). */
const KEPT_HERE: readonly CollectionName[] = ['settings'];

/**
 * Named snapshots as files beside the data file: `store.json.snapshots/NAME.json`, in the store's
 * own snapshot format (snapshot.ts) with room for the settings, written aside and renamed (never
 * half a file). A restore makes the file the store's snapshot (Store.restore: read as a cold start
 * reads it, linked when it can be). Those saved before as fixture documents are still read.
 */
class JsonSnapshots implements Snapshots {
  constructor(
    private readonly engine: JsonEngine,
    private readonly exclusive: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  private get dir(): string {
    return `${this.engine.store.file}.snapshots`;
  }

  private file(name: string): string {
    if (!SAFE_NAME.test(name)) throw new Error(`\`${name}\` is not a snapshot name.`);
    return path.join(this.dir, `${name}.json`);
  }

  async save(name: string): Promise<SnapshotInfo> {
    const file = this.file(name);
    await privateDir(this.dir, true);
    // The copy's sections are taken as it starts (as a compaction takes them), with no write
    // transaction half done; it is written beside later writes.
    let writing!: Promise<void>;
    await this.exclusive(async () => void (writing = this.engine.store.writeCopy(file, SNAPSHOT_SAVED, 'settings')));
    await writing;
    const st = await stat(file);
    return { name, bytes: st.size, saved_at: st.mtime.toISOString() };
  }

  async restore(name: string): Promise<boolean> {
    const file = this.file(name);
    const saved = await readFile(file).catch(() => undefined);
    if (!saved) return false;
    const store = this.engine.store;
    if (isSnapshotFile(saved)) {
      await this.exclusive(async () => {
        try {
          await store.restore(saved, KEPT_HERE, file);
        } catch (err) {
          if (err instanceof SnapshotError) throw new SnapshotUnreadableError(name, `it ${err.message}.`);
          throw err;
        }
      });
      return true;
    }
    // A snapshot saved as a fixture document.
    let records;
    try {
      records = parseFixture(JSON.parse(saved.toString('utf8')), name, { get: () => undefined });
    } catch (err) {
      if (err instanceof FixtureError || err instanceof SyntaxError)
        throw new SnapshotUnreadableError(name, err.message.split('\n')[0]);
      throw err;
    }
    await this.exclusive(async () => {
      const refusal = store.writeRefusal();
      if (refusal) throw refusal;
      const cleared = COLLECTIONS.filter((c) => !KEPT_HERE.includes(c));
      const deletes = cleared.reduce((n, c) => n + store.count(c), 0);
      await store.loadMany(deletes + recordCount([records]), (tx) => {
        for (const c of cleared) tx.clear(c);
        putRecords(tx, [records]);
      });
    });
    return true;
  }

  async list(): Promise<SnapshotInfo[]> {
    let names: string[];
    try {
      names = (await readdir(this.dir))
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.slice(0, -5))
        .filter((f) => SAFE_NAME.test(f));
    } catch {
      return [];
    }
    const out: SnapshotInfo[] = [];
    for (const name of names.sort()) {
      const st = await stat(this.file(name)).catch(() => undefined);
      if (st) out.push({ name, bytes: st.size, saved_at: st.mtime.toISOString() });
    }
    return out;
  }

  async delete(name: string): Promise<boolean> {
    return rm(this.file(name)).then(
      () => true,
      () => false,
    );
  }

  async reset(records: Iterable<Loaded>): Promise<void> {
    await this.engine.load(SNAPSHOT_REPLACED, records);
  }
}

/**
 * Reads over one state. A class, not closures: a write transaction is one object, not the dozen
 * functions made for each one before, whose allocation and garbage collection took a write
 * through the engine from 18 to 27 µs of CPU in-process (100,000 listings).
 */
class JsonReadTx implements ReadTx {
  constructor(
    readonly state: State,
    private readonly clock: () => number,
  ) {}

  /** Throws the conflict that ended the transaction, if one did (a write transaction's). */
  check(): void {}

  /** Brings the indexes up to the transaction's writes (a write transaction's). */
  indexes(): void {}

  async get<C extends CollectionName>(c: C, id: string): Promise<RecordTypes[C] | undefined> {
    this.check();
    return this.state.get(c, id);
  }

  async find<C extends CollectionName>(c: C, index: LookupOf<C>, key: string): Promise<RecordTypes[C] | undefined> {
    this.check();
    if (LOOKUPS[index as LookupName].collection !== c) throw new Error(`index ${index} is not over ${c}`);
    return this.state.find(index as LookupName, key) as RecordTypes[C] | undefined;
  }

  async page<C extends CollectionName, N extends IndexOf<C>>(
    c: C,
    name: N,
    q: PageQuery<IndexedRecord<N>>,
  ): Promise<Page<RecordTypes[C]>> {
    this.check();
    this.indexes();
    return pageOf(this.state, c, name, q as PageQuery<{ id: string }>) as Page<RecordTypes[C]>;
  }

  async count<C extends CollectionName>(c: C, name?: IndexOf<C>, partition?: string): Promise<number> {
    this.check();
    if (name === undefined) return this.state.count(c);
    this.indexes();
    return this.state.index(name).entries(partition ?? '').length;
  }

  async now(): Promise<number> {
    this.check();
    return this.clock() + offsetOf(this.state.get('settings', CLOCK_OFFSET_SETTING)?.value);
  }
}

/**
 * A write transaction: its writes go to the state's maps as they come (so its reads see them),
 * into the indexes before anything reads one, and are kept in `ops` (with their `undo`) for the
 * journal.
 */
class JsonWriteTx extends JsonReadTx implements WriteTx {
  readonly ops: Op[] = [];
  readonly undo: Op[] = [];
  /** Writes before this one are in the indexes already; the rest in the maps only. */
  private indexed = 0;
  private failed: ConflictError | null = null;

  override check(): void {
    if (this.failed) throw this.failed;
  }

  override indexes(): void {
    if (this.indexed === this.ops.length) return;
    this.state.reindex(this.ops.slice(this.indexed), this.undo.slice(this.indexed));
    this.indexed = this.ops.length;
  }

  /** Undoes every write: those not yet in the indexes in the maps alone, then the rest everywhere. */
  rollback(): void {
    this.state.rollback(this.undo.slice(this.indexed), false);
    this.state.rollback(this.undo.slice(0, this.indexed), true);
  }

  private conflict(err: ConflictError): never {
    throw (this.failed = err);
  }

  private putChecked<C extends CollectionName>(c: C, rec: RecordTypes[C]): RecordTypes[C] {
    for (const def of LOOKUPS_OF.get(c) ?? []) {
      const key = def.key(rec as never);
      const holder = key === null ? undefined : this.state.find(def.name, key);
      if (holder && holder.id !== rec.id) this.conflict(new ConflictError(c, rec.id, def.name));
    }
    return this.state.write(this.ops, this.undo, c, rec);
  }

  async put<C extends CollectionName>(c: C, rec: RecordTypes[C]): Promise<RecordTypes[C]> {
    this.check();
    return this.putChecked(c, rec);
  }

  async create<C extends CollectionName>(c: C, rec: RecordTypes[C]): Promise<RecordTypes[C]> {
    this.check();
    if (this.state.get(c, rec.id) !== undefined) this.conflict(new ConflictError(c, rec.id));
    return this.putChecked(c, rec);
  }

  async delete(c: CollectionName, id: string): Promise<void> {
    this.check();
    this.state.remove(this.ops, this.undo, c, id);
  }
}

/** One keyset page along an index in memory (a lazy collection's stubs read as their records). */
function pageOf(state: State, c: CollectionName, name: IndexName, q: PageQuery<{ id: string }>): Page<unknown> {
  if (INDEXES[name].collection !== c) throw new Error(`index ${name} is not over ${c}`);
  const index = state.index(name) as unknown as SortedIndex<{ id: string }>;
  let entries = index.entries(q.partition);
  if (q.from || q.to) {
    const lo = q.from ? index.seek(entries, q.from, false) : 0;
    const hi = q.to ? index.seek(entries, q.to, false) : entries.length;
    entries = entries.slice(lo, Math.max(lo, hi));
  }
  const start = q.after ? index.seek(entries, q.after, true) : 0;
  // A lazy collection's index holds stubs: read each record (parsed on first read). Other indexes hold the records.
  const whole = LAZY_COLLECTIONS.has(c) ? (r: { id: string }) => state.ofStub(c, r) : null;
  let filter = q.filter;
  if (q.search) {
    if (!isSearched(c)) throw new Error(`${c} has no searched fields`);
    const matches = matchesSearch(c, q.search);
    const test = q.filter;
    const searched = (r: { id: string }) => matches((whole ? whole(r) : r) as RecordTypes[SearchedCollection]);
    filter = test ? (r) => test(r) && searched(r) : searched;
  }
  const { recs, last, more } = scanEntries(entries, start, q.limit, filter);
  return { items: whole ? recs.map(whole) : recs, last, more };
}
