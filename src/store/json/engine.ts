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
import { INDEXES, LOOKUPS, LOOKUPS_OF, type IndexName, type LookupName } from '../indexes.js';
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
  type Loaded,
  type LoadOptions,
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

  constructor(
    readonly store: Store,
    private readonly options: JsonEngineOptions = {},
  ) {}

  /** Opens (creating if needed) a data file, as `Store.open` does, behind the interface. */
  static async open(file: string, options: StoreOptions & JsonEngineOptions = {}): Promise<JsonEngine> {
    return new JsonEngine(await Store.open(file, options), options);
  }

  async read<T>(fn: (tx: ReadTx) => Promise<T>): Promise<T> {
    while (this.writing) await this.writing;
    const state = this.store.state;
    // A read keeps nothing of its own: one tx per state (a restore replaces the state).
    if (this.reader?.state !== state) this.reader = { state, tx: this.readTx(state) };
    return fn(this.reader.tx);
  }

  async write<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> {
    while (this.writing) await this.writing;
    let done!: () => void;
    this.writing = new Promise<void>((r) => (done = r));
    let durable: Promise<void>;
    let result: T;
    try {
      [result, durable] = await this.run(fn);
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

  /** Runs `fn` over the state, and hands its writes to the journal (or undoes them if it threw). */
  private async run<T>(fn: (tx: WriteTx) => Promise<T>): Promise<[T, Promise<void>]> {
    const refusal = this.store.writeRefusal();
    if (refusal) throw refusal;
    const state = this.store.state;
    const ops: Op[] = [];
    const undo: Op[] = [];
    const raw = state.tx(ops, undo);
    /** Writes before this one are in the indexes already; the rest in the maps only. */
    let indexed = 0;
    const indexes = () => {
      if (indexed === ops.length) return;
      state.reindex(ops.slice(indexed), undo.slice(indexed));
      indexed = ops.length;
    };
    let failed: ConflictError | null = null;
    const check = () => {
      if (failed) throw failed;
    };
    const conflict = (err: ConflictError): never => {
      throw (failed = err);
    };
    const base = this.readTx(state, indexes, check);
    const put = <C extends CollectionName>(c: C, rec: RecordTypes[C]) => {
      for (const def of LOOKUPS_OF.get(c) ?? []) {
        const key = def.key(rec as never);
        const holder = key === null ? undefined : state.find(def.name, key);
        if (holder && holder.id !== rec.id) conflict(new ConflictError(c, rec.id, def.name));
      }
      return raw.put(c, rec);
    };
    const tx: WriteTx = {
      ...base,
      put: async (c, rec) => (check(), put(c, rec)),
      create: async (c, rec) => {
        check();
        if (state.get(c, rec.id) !== undefined) conflict(new ConflictError(c, rec.id));
        return put(c, rec);
      },
      delete: async (c, id) => (check(), raw.delete(c, id)),
    };
    let result: T;
    try {
      result = await fn(tx);
      check();
      if (this.store.state !== state)
        throw new Error('The store was replaced (a reset or a restore) during the transaction; try again.');
    } catch (err) {
      // The writes not yet in the indexes are undone in the maps alone, then the rest everywhere.
      state.rollback(undo.slice(indexed), false);
      state.rollback(undo.slice(0, indexed), true);
      throw err;
    }
    indexes();
    return [result, this.store.commitApplied(ops, undo)];
  }

  /** Reads over `state`; `indexes` brings the indexes up to the transaction's writes first. */
  private readTx(state: State, indexes: () => void = () => {}, check: () => void = () => {}): ReadTx {
    const clock = this.options.clock ?? Date.now;
    return {
      get: async (c, id) => (check(), state.get(c, id)),
      find: async (c, index, key) => {
        check();
        if (LOOKUPS[index as LookupName].collection !== c) throw new Error(`index ${index} is not over ${c}`);
        return state.find(index as LookupName, key) as RecordTypes[typeof c] | undefined;
      },
      page: async (c, name, q) => {
        check();
        indexes();
        return pageOf(state, c, name, q as PageQuery<{ id: string }>) as Page<RecordTypes[typeof c]>;
      },
      count: async (c, name, partition) => {
        check();
        if (name === undefined) return state.count(c);
        indexes();
        return state.index(name).entries(partition ?? '').length;
      },
      now: async () => (check(), clock() + offsetOf(state.get('settings', CLOCK_OFFSET_SETTING)?.value)),
    };
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
  const whole = LAZY_COLLECTIONS.has(c) ? (r: { id: string }) => state.get(c, r.id) as { id: string } : null;
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
