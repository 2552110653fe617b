import {
  createIndexSet,
  INDEXES,
  LOOKUPS,
  LOOKUPS_OF,
  stubOf,
  type IndexedRecord,
  type IndexName,
  type LookupDef,
  type LookupName,
} from '../indexes.js';
import type { SortedIndex } from '../sorted-index.js';
import {
  COLLECTIONS,
  LAZY_COLLECTIONS,
  MEMORY_ONLY,
  type CollectionName,
  type RecordTypes,
  type Tx,
} from '../records.js';
import type { SnapshotSection } from './snapshot-writer.js';

export class StoreCorruptError extends Error {}

/** One write of a transaction: a record, or null for a delete. */
export type Op = [CollectionName, string, unknown];

/** Above this many writes to one collection in a transaction, its indexes are rebuilt instead. */
const BULK_REINDEX = 512;

/**
 * The store's state in memory: records by collection and id, and the sorted indexes over them.
 * In a lazy collection (LAZY_COLLECTIONS) a value may still be a number: the byte offset of the
 * record's JSON in the snapshot's bytes, parsed on first read. It knows nothing of files.
 */
export class State {
  private readonly data = new Map<CollectionName, Map<string, unknown>>();
  private readonly lazyBytes = new Map<CollectionName, Buffer>();
  private readonly stubRecords = new WeakMap<object, { id: string }>();
  /** Every index, by name and by collection, and the members lazy collections' stubs keep. */
  private readonly indexSet = createIndexSet();
  /**
   * The unique indexes (LOOKUPS), key to id, each built on its first `find` and kept up to date by
   * every write from then on; a bulk write drops its collection's, to be built again when needed.
   * A store that nobody looks up by them pays nothing.
   */
  private readonly lookups = new Map<LookupName, Map<string, string>>();
  /**
   * Each collection's built indexes, the ones writes keep up to date. A lazy collection's indexes
   * after its first (threads by contact: on 100,000 threads a fifth of a restart's CPU and 70 MB)
   * are built on their first read from the records as they are then (stubs for those unread), and
   * kept up to date from then on; a bulk write drops them again. The first is always built:
   * snapshots and exports list the collection in its order.
   */
  private readonly live = new Map<CollectionName, SortedIndex<{ id: string }>[]>();

  /** `file` names the data file in corruption messages. */
  constructor(private readonly file: string) {
    for (const c of COLLECTIONS) this.data.set(c, new Map());
    for (const c of this.indexSet.byCollection.keys()) this.dropDeferred(c);
  }

  /** Leaves only the indexes of `c` that are never deferred built; the others empty, until read. */
  private dropDeferred(c: CollectionName): void {
    const all = this.indexSet.byCollection.get(c)!;
    if (!LAZY_COLLECTIONS.has(c)) return void this.live.set(c, all);
    for (const idx of all.slice(1)) idx.reset([]);
    this.live.set(c, all.slice(0, 1));
  }

  has(c: string): c is CollectionName {
    return this.data.has(c as CollectionName);
  }

  // Loading: the snapshot's records, then the journal's writes, then every index in one bulk load.

  /** A record from the snapshot. */
  loadRecord(c: CollectionName, rec: { id: string }): void {
    this.data.get(c)!.set(rec.id, rec);
  }

  /** A lazy collection from the snapshot: its bytes, and each id's offset in them. */
  loadLazy(c: CollectionName, bytes: Buffer, ids: readonly string[], offsets: readonly number[]): void {
    const m = this.data.get(c)!;
    for (let i = 0; i < ids.length; i++) m.set(ids[i], offsets[i]);
    this.lazyBytes.set(c, bytes);
  }

  /** A write replayed from the journal (maps only; the indexes are built after). */
  replayed(c: CollectionName, id: string, value: unknown): void {
    if (value === null) this.data.get(c)!.delete(id);
    else this.data.get(c)!.set(id, value);
  }

  /**
   * Builds every index: a lazy collection's from the snapshot's stubs, except for the records the
   * journal wrote or deleted (`touched`), which are read.
   */
  buildIndexes(stubLists: Map<CollectionName, Array<{ id: string }>>, touched: Map<CollectionName, Set<string>>): void {
    for (const [c, list] of this.live) {
      const m = this.data.get(c)!;
      const stubs = stubLists.get(c);
      // An array, not the map's iterator: every index of the collection reads it.
      let recs: Iterable<{ id: string }> = [...m.values()] as Array<{ id: string }>;
      const fields = this.indexSet.stubFields.get(c) ?? [];
      if (stubs?.length && fields.some((f) => !(f in stubs[0]))) {
        // Stubs written before an index of the collection read another member: the records are
        // read once instead (the next snapshot writes the fuller stubs).
        recs = [...m.keys()].map((id) => this.get(c, id) as { id: string });
      } else if (stubs) {
        const t = touched.get(c);
        recs = !t?.size
          ? stubs
          : [
              ...stubs.filter((s) => !t.has(s.id)),
              ...[...t].flatMap((id) => (m.has(id) ? [m.get(id) as { id: string }] : [])),
            ];
      } else if (LAZY_COLLECTIONS.has(c) && [...m.values()].some((v) => typeof v === 'number')) {
        throw new StoreCorruptError(
          `The data file ${this.file} is damaged: collection ${c} has no index stubs. Restore it from a backup or an export.`,
        );
      }
      for (const idx of list) idx.load(recs);
    }
  }

  // Reads.

  get<C extends CollectionName>(c: C, id: string): RecordTypes[C] | undefined {
    const v = this.data.get(c)!.get(id);
    return (typeof v === 'number' ? this.materialize(c, id, v) : v) as RecordTypes[C] | undefined;
  }

  /**
   * The record an index stub of a lazy collection stands for, remembered by stub. A write replaces
   * the stub in its indexes with the record written, and a rollback puts back the stub with the
   * record it stood for, so a stub's record never changes: a page reads each item without a
   * lookup in the map of every record (with 100,000 threads, 5% of a filtered page's CPU).
   */
  ofStub(c: CollectionName, stub: { id: string }): { id: string } {
    let rec = this.stubRecords.get(stub);
    if (!rec) {
      rec = this.get(c, stub.id) as { id: string };
      if (rec) this.stubRecords.set(stub, rec);
    }
    return rec;
  }

  values<C extends CollectionName>(c: C): IterableIterator<RecordTypes[C]> {
    const m = this.data.get(c)!;
    if (!LAZY_COLLECTIONS.has(c)) return m.values() as IterableIterator<RecordTypes[C]>;
    return (function* (state: State) {
      for (const [id, v] of m) yield (typeof v === 'number' ? state.materialize(c, id, v) : v) as RecordTypes[C];
    })(this);
  }

  /** Parses a lazy record from the snapshot's bytes, once: the parsed record replaces the offset. */
  private materialize(c: CollectionName, id: string, start: number): unknown {
    const buf = this.lazyBytes.get(c)!;
    let rec: { id?: unknown };
    try {
      rec = JSON.parse(buf.toString('utf8', start, buf.indexOf(10, start)));
    } catch (err) {
      throw new StoreCorruptError(
        `The data file ${this.file} is damaged: record \`${id}\` of ${c} is not valid JSON (${(err as Error).message}). Restore it from a backup or an export.`,
      );
    }
    if (rec?.id !== id)
      throw new StoreCorruptError(
        `The data file ${this.file} is damaged: the record filed as \`${id}\` of ${c} has id ${JSON.stringify(rec?.id)}. Restore it from a backup or an export.`,
      );
    Object.freeze(rec);
    this.data.get(c)!.set(id, rec);
    return rec;
  }

  /** The record of `c` whose key in the unique index `name` is `key`. */
  find(name: LookupName, key: string): { id: string } | undefined {
    const def = LOOKUPS[name];
    let m = this.lookups.get(name);
    if (!m) {
      m = new Map();
      for (const rec of this.data.get(def.collection)!.values()) {
        const k = def.key(rec as never);
        if (k !== null) m.set(k, (rec as { id: string }).id);
      }
      this.lookups.set(name, m);
    }
    const id = m.get(key);
    return id === undefined ? undefined : (this.get(def.collection, id) as { id: string } | undefined);
  }

  /** Drops the unique indexes of `c` (written in bulk): built again on the next `find`. */
  private dropLookups(c: CollectionName): void {
    for (const def of LOOKUPS_OF.get(c) ?? []) this.lookups.delete(def.name);
  }

  ids(c: CollectionName): string[] {
    return [...this.data.get(c)!.keys()];
  }

  count(c: CollectionName): number {
    return this.data.get(c)!.size;
  }

  /** An index, built first if it was deferred (the caller brought the indexes up to its writes). */
  index<N extends IndexName>(name: N): SortedIndex<IndexedRecord<N>> {
    const idx = this.indexSet.byName.get(name)!;
    const c = INDEXES[name].collection;
    const live = this.live.get(c)!;
    if (!live.includes(idx)) {
      idx.reset(this.keyed(c));
      live.push(idx);
    }
    return idx as never;
  }

  /** A collection's records in the order of its first index (else as stored). */
  valuesInOrder<C extends CollectionName>(c: C): Array<RecordTypes[C]> {
    const recs = [...this.values(c)] as Array<RecordTypes[C]>;
    const idx = this.indexSet.byCollection.get(c)?.[0];
    return idx ? (idx.order(recs as Array<{ id: string }>) as Array<RecordTypes[C]>) : recs;
  }

  // Writes.

  /** A transaction over this state: writes go to the maps at once; `ops` and `undo` record them. */
  tx(ops: Op[], undo: Op[]): Tx {
    const tx: Tx = {
      get: (c, id) => this.get(c, id),
      put: (c, rec) => this.write(ops, undo, c, rec),
      delete: (c, id) => this.remove(ops, undo, c, id),
      clear: (c) => {
        for (const id of this.ids(c)) this.remove(ops, undo, c, id);
      },
    };
    return tx;
  }

  /** Writes `rec` to its map (frozen), not yet to the indexes; `ops` and `undo` record it. */
  write<C extends CollectionName>(ops: Op[], undo: Op[], c: C, rec: RecordTypes[C]): RecordTypes[C] {
    Object.freeze(rec);
    undo.push([c, rec.id, this.apply(c, rec.id, rec, false)]);
    ops.push([c, rec.id, rec]);
    return rec;
  }

  /** Deletes record `id` from its map, if it is there, not yet from the indexes; `ops` and `undo` record it. */
  remove(ops: Op[], undo: Op[], c: CollectionName, id: string): void {
    if (!this.data.get(c)!.has(id)) return;
    undo.push([c, id, this.apply(c, id, null, false)]);
    ops.push([c, id, null]);
  }

  /**
   * A bulk load's writer: writes go to the maps only, with nothing kept to undo them (a failed
   * bulk load reads the state back from disk) and no lazy record parsed to delete it. The
   * collections written are added to `written`; `rebuildIndexes` brings their indexes up after.
   */
  bulkTx(written: Set<CollectionName>): Tx {
    return {
      get: (c, id) => this.get(c, id),
      put: (c, rec) => {
        Object.freeze(rec);
        this.data.get(c)!.set(rec.id, rec);
        written.add(c);
        this.dropLookups(c);
        return rec;
      },
      delete: (c, id) => {
        if (this.data.get(c)!.delete(id)) written.add(c);
        this.dropLookups(c);
      },
      clear: (c) => {
        if (this.data.get(c)!.size) written.add(c);
        this.dropLookups(c);
        this.data.get(c)!.clear();
      },
      // Taken as a cold start takes a snapshot's lines, unless the collection has indexes or lines already.
      putLines: (c, lines) => {
        if (this.lazyBytes.has(c) || this.indexSet.byCollection.has(c)) return false;
        this.loadLazy(c, lines.bytes(), lines.ids, lines.offsets);
        written.add(c);
        return true;
      },
    };
  }

  /**
   * Rebuilds the indexes of collections written in bulk, with one sort each. A lazy record still
   * unread is indexed by the stub the index held for it (it is not parsed). Snapshot bytes that no
   * record points into any more are let go.
   */
  rebuildIndexes(collections: Iterable<CollectionName>): void {
    for (const c of collections) {
      const m = this.data.get(c)!;
      this.dropLookups(c);
      if (!this.live.has(c)) {
        if (LAZY_COLLECTIONS.has(c) && ![...m.values()].some((v) => typeof v === 'number')) this.lazyBytes.delete(c);
        continue;
      }
      // The stubs are taken before the deferred indexes are dropped, and the bytes let go after.
      const recs = this.keyed(c);
      if (LAZY_COLLECTIONS.has(c) && ![...m.values()].some((v) => typeof v === 'number')) this.lazyBytes.delete(c);
      this.dropDeferred(c);
      for (const idx of this.live.get(c)!) idx.reset(recs);
    }
  }

  /** Sets one record (null deletes) in its map and, unless `indexes` is false, in its indexes. */
  private apply(c: CollectionName, id: string, value: unknown, indexes = true): unknown {
    const m = this.data.get(c)!;
    let old = m.get(id);
    // Undo and the indexes need the record itself, not its offset.
    if (typeof old === 'number') old = this.materialize(c, id, old);
    const idxs = indexes ? this.live.get(c) : undefined;
    if (idxs && old !== undefined) for (const idx of idxs) idx.remove(old as { id: string });
    if (value === null) m.delete(id);
    else {
      m.set(id, value);
      if (idxs) for (const idx of idxs) idx.insert(value as { id: string });
    }
    const lookups = this.lookups.size ? LOOKUPS_OF.get(c) : undefined;
    if (lookups) this.relook(lookups, id, old, value);
    return old === undefined ? null : old;
  }

  /** Moves record `id` in the built unique indexes from its key in `old` to its key in `value`. */
  private relook(
    defs: ReadonlyArray<LookupDef & { name: LookupName }>,
    id: string,
    old: unknown,
    value: unknown,
  ): void {
    for (const def of defs) {
      const m = this.lookups.get(def.name);
      if (!m) continue;
      const was = old === undefined || old === null ? null : def.key(old as never);
      const now = value === null ? null : def.key(value as never);
      if (was === now) continue;
      if (was !== null && m.get(was) === id) m.delete(was);
      if (now !== null) m.set(now, id);
    }
  }

  /**
   * Brings the indexes up to date with a transaction's writes. Small transactions update entry by
   * entry; big ones (a fixture import) rebuild the collection's indexes with one sort, because
   * entry-by-entry insertion into a sorted array is quadratic.
   */
  reindex(ops: Op[], undo: Op[]): void {
    if (ops.length <= BULK_REINDEX) {
      for (let i = 0; i < ops.length; i++) this.reindexOne(ops[i], undo[i]);
      return;
    }
    const perCollection = new Map<CollectionName, number>();
    for (const [c] of ops) perCollection.set(c, (perCollection.get(c) ?? 0) + 1);
    for (const [c, n] of perCollection) {
      if (!this.live.has(c)) continue;
      if (n > BULK_REINDEX) {
        this.rebuildIndexes([c]);
        continue;
      }
      for (let i = 0; i < ops.length; i++) if (ops[i][0] === c) this.reindexOne(ops[i], undo[i]);
    }
  }

  private reindexOne(op: Op, undone: Op): void {
    const idxs = this.live.get(op[0]);
    if (!idxs) return;
    const before = undone[2];
    const after = op[2];
    for (const idx of idxs) {
      if (before !== null) idx.remove(before as { id: string });
      if (after !== null) idx.insert(after as { id: string });
    }
  }

  /** Undoes writes in reverse; `indexes` false when the indexes never saw them (a transaction that threw). */
  rollback(undo: Op[], indexes = true): void {
    for (let i = undo.length - 1; i >= 0; i--) {
      const [c, id, value] = undo[i];
      this.apply(c, id, value, indexes);
    }
  }

  /**
   * Every record of an indexed collection as its indexes read it: a record still unread by the
   * stub they hold (read when it is in no partition of any index, so has no stub there).
   */
  private keyed(c: CollectionName): Array<{ id: string }> {
    const m = this.data.get(c)!;
    const stubs = new Map<string, { id: string }>();
    if (this.lazyBytes.has(c))
      for (const idx of this.indexSet.byCollection.get(c)!)
        for (const rec of idx.all()) if (typeof m.get(rec.id) === 'number') stubs.set(rec.id, rec);
    return [...m].map(([id, v]) =>
      typeof v === 'number' ? (stubs.get(id) ?? (this.get(c, id) as { id: string })) : (v as { id: string }),
    );
  }

  /** The whole state but MEMORY_ONLY collections, taken at once, as the sections encodeSnapshot writes. */
  snapshotSections(): SnapshotSection[] {
    return COLLECTIONS.map((c) => {
      const m = this.data.get(c)!;
      // Kept in memory only: written as an empty section, so a restart starts it empty.
      if (MEMORY_ONLY.has(c)) return { collection: c, records: [] };
      if (!LAZY_COLLECTIONS.has(c)) return { collection: c, records: this.valuesInOrder(c) };
      // Records never read are copied as the bytes they were loaded from, with the stubs the
      // indexes hold for them.
      const bytes = this.lazyBytes.get(c);
      const fields = this.indexSet.stubFields.get(c);
      if (!fields) return { collection: c, lazy: [...m], source: bytes };
      const ordered = this.indexSet.byCollection.get(c)![0].order(this.keyed(c));
      return {
        collection: c,
        lazy: ordered.map((k) => [k.id, m.get(k.id)] as [string, unknown]),
        source: bytes,
        stubs: ordered.map((k) => stubOf(k, fields)),
      };
    });
  }
}
