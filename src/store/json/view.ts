import type { IndexedRecord, IndexName, SortedIndex } from '../indexes.js';
import type { CollectionName, RecordTypes } from '../records.js';
import { snapshotChunks } from './snapshot-writer.js';
import { State } from './state.js';

/**
 * What the JSON file store (store.ts) reads: the records in memory and their indexes. The JSON engine (json/engine.ts) reads and writes through it.
 */
export class StoreView {
  /** @internal The records in memory (a restore replaces it). */
  state: State;
  /** @internal The sequence number of the last write applied. */
  seq = 0;

  /** `file` names the data file in messages. */
  constructor(readonly file: string) {
    this.state = new State(file);
  }

  get<C extends CollectionName>(c: C, id: string): RecordTypes[C] | undefined {
    return this.state.get(c, id);
  }

  values<C extends CollectionName>(c: C): IterableIterator<RecordTypes[C]> {
    return this.state.values(c);
  }

  /** The ids of a collection, without reading its lazy records (a reset deletes them unread). */
  ids(c: CollectionName): string[] {
    return this.state.ids(c);
  }

  count(c: CollectionName): number {
    return this.state.count(c);
  }

  /** Entries of a lazy collection's index may be stubs: read the record with `get`. */
  index<N extends IndexName>(name: N): SortedIndex<IndexedRecord<N>> {
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
}
