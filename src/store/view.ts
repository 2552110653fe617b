import { INDEXES, type IndexedRecord, type IndexName, type SortedIndex } from './indexes.js';
import type { CollectionName, RecordTypes, Tx } from './records.js';
import { snapshotChunks } from './snapshot-writer.js';
import { State, type Op } from './state.js';
import type { PgLog } from './pg/log.js';
import { memoryRecords, type RecordRepository } from './record-repository.js';
import { memoryThreads, type ThreadRepository } from './thread-repository.js';

/**
 * What every store reads, whichever keeps it durable (store.ts: the JSON file; pg/log.ts:
 * PostgreSQL): the records in memory, their indexes, and the rules that prune them.
 */
export class StoreView {
  /** @internal The records in memory (the shared log replaces it when another process reset the data). */
  state: State;
  /** @internal The sequence number of the last write applied. */
  seq = 0;
  /** @internal Set when the records are kept in PostgreSQL (Store.openShared). */
  shared: PgLog | null = null;
  /** The threads area's records (thread-repository.ts): from memory here, from their table on PostgreSQL. */
  threads: ThreadRepository = memoryThreads(this);
  /** The other areas' records (record-repository.ts): from memory here; PostgreSQL may keep some in tables. */
  records: RecordRepository = memoryRecords(this);
  /**
   * Collections this process does not hold (PostgreSQL keeps them in a table, pg/records.ts): read
   * them through `records`; a synchronous read throws, so a reader not converted yet is found.
   */
  tabled: ReadonlySet<CollectionName> = new Set();
  /** @internal */
  readonly pruners: Array<(tx: Tx, store: StoreView) => void> = [];

  /** `file` names the data (a path, or a PostgreSQL URL without its password) in messages. */
  constructor(readonly file: string) {
    this.state = new State(file);
  }

  get<C extends CollectionName>(c: C, id: string): RecordTypes[C] | undefined {
    if (this.tabled.has(c)) throw notHeld(c);
    return this.state.get(c, id);
  }

  values<C extends CollectionName>(c: C): IterableIterator<RecordTypes[C]> {
    if (this.tabled.has(c)) throw notHeld(c);
    return this.state.values(c);
  }

  /** The ids of a collection, without reading its lazy records (a reset deletes them unread). */
  ids(c: CollectionName): string[] {
    if (this.tabled.has(c)) throw notHeld(c);
    return this.state.ids(c);
  }

  count(c: CollectionName): number {
    if (this.tabled.has(c)) throw notHeld(c);
    return this.state.count(c);
  }

  /** Entries of a lazy collection's index may be stubs: read the record with `get`. */
  index<N extends IndexName>(name: N): SortedIndex<IndexedRecord<N>> {
    if (this.tabled.has(INDEXES[name].collection)) throw notHeld(INDEXES[name].collection);
    return this.state.index(name);
  }

  isEmpty(): boolean {
    return this.count('users') === 0 && this.count('workspaces') === 0 && this.count('tokens') === 0;
  }

  /**
   * A collection's records in the order of its first index (else as stored): how snapshots and
   * exports list them, the same after every restart. The next start-up's index load then sorts
   * lists that are sorted already (V8's sort makes one pass).
   */
  valuesInOrder<C extends CollectionName>(c: C): Array<RecordTypes[C]> {
    if (this.tabled.has(c)) throw notHeld(c);
    return this.state.valuesInOrder(c);
  }

  /**
   * The records of `collections`, as they are now, as a snapshot's bytes (streamed), with room for
   * `kept`'s records, which a restore fills in (Store.writeCopy).
   */
  copy(collections: ReadonlySet<CollectionName>, kept?: CollectionName): AsyncIterable<Buffer> {
    return snapshotChunks(
      0,
      this.state.snapshotSections().filter((s) => collections.has(s.collection)),
      { kept },
    );
  }

  /** Brings the state up to what other processes have committed (PostgreSQL; nothing to do on a file). */
  sync(): Promise<void> {
    return this.shared ? this.shared.sync() : Promise.resolve();
  }

  /**
   * Adds a rule run at each compaction that deletes records nobody can use any more (expired
   * tokens, spent codes). On the JSON file its deletes are not journaled: the snapshot written next
   * is the state without them (should that write fail, a restart brings them back, and the next
   * compaction deletes them again). On PostgreSQL they are one journaled transaction.
   */
  addPruner(fn: (tx: Tx, store: StoreView) => void): void {
    this.pruners.push(fn);
  }

  /** Runs the pruners on the state; their writes, or null if none ran or one failed (nothing pruned then). */
  prune(): { ops: Op[]; undo: Op[] } | null {
    if (!this.pruners.length) return null;
    const ops: Op[] = [];
    const undo: Op[] = [];
    const tx = this.state.tx(ops, undo);
    try {
      for (const p of this.pruners) p(tx, this);
    } catch (err) {
      this.state.rollback(undo, false);
      process.emitWarning(`wcm: pruning before compaction failed (nothing was pruned): ${(err as Error).message}`);
      return null;
    }
    this.state.reindex(ops, undo);
    return { ops, undo };
  }
}

const notHeld = (c: CollectionName) =>
  new Error(`${c} are kept in a PostgreSQL table, not in this process: read them through store.records.`);
