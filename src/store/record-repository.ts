import { INDEXES, type IndexName } from './indexes.js';
import type { CollectionName, RecordTypes } from './records.js';
import { scanEntries, type SortedIndex, type SortKey } from './sorted-index.js';

/**
 * The areas' records (listings, forms, pages, knowledge, bookings, voice, commerce…) as handlers and
 * pages read them: by id, and a page at a time along one of the indexes of indexes.ts. Every read
 * returns a promise, so a store may answer from memory (the JSON store: its maps and indexes, as
 * before) or from a database with keyset queries (PostgreSQL, where a process need not hold them).
 * Threads have their own repository (thread-repository.ts): their lists filter by view and search.
 *
 * Writes stay in transactions (`store.transact`). A transaction that reads records it then writes
 * names them up front (`reads`), so a store that does not hold them can fetch them first.
 */
export interface RecordRepository {
  get<C extends CollectionName>(c: C, id: string): Promise<RecordTypes[C] | undefined>;
  /** Records of one partition of `index`, in its order, strictly after `after`. */
  page<N extends RecordIndex>(
    index: N,
    partition: string,
    q: RecordPageQuery<RecordOfIndex<N>>,
  ): Promise<RecordSlice<RecordOfIndex<N>>>;
  /** How many records one partition of `index` holds. */
  count(index: RecordIndex, partition: string): Promise<number>;
  /** How many records of `c` the store holds. */
  size(c: CollectionName): Promise<number>;
  /** Every record of `c` in the order exports list them (its first index's), a few at a time. */
  stream<C extends CollectionName>(c: C): AsyncIterable<RecordTypes[C]>;
  /** Which of these ids of `c` are taken already. */
  taken(c: CollectionName, ids: readonly string[]): Promise<string[]>;
}

/** The indexes a RecordRepository pages through: all but the threads' (their own repository). */
export type RecordIndex = Exclude<IndexName, 'threadsByFilter'>;
/** The record type an index lists. */
export type RecordOfIndex<N extends RecordIndex> = RecordTypes[(typeof INDEXES)[N]['collection']];

export interface RecordPageQuery<T> {
  /** The sort key of the last record of the previous page (a decoded cursor); none for the first page. */
  after?: SortKey | null;
  limit: number;
  /** Only records passing this; the scan reads on in order until the page is full. */
  filter?: (rec: T) => boolean;
  /** Only keys at or after `from` and before `to` (bookings' time range: `[starts_at]`). */
  from?: SortKey;
  to?: SortKey;
}

/** One page: the records, the sort key of the last one, and whether another matching record follows. */
export interface RecordSlice<T> {
  items: T[];
  last: SortKey | null;
  more: boolean;
}

/**
 * The records a transaction reads and then writes, named before it runs (`store.transact(fn, reads)`):
 * a store that keeps them out of memory fetches them first, under its write lock, so the
 * transaction's synchronous `tx.get` finds them. The JSON store holds everything and ignores it.
 */
export type TxReads = ReadonlyArray<readonly [CollectionName, string]>;

/** The collection an index lists. */
export const indexCollection = (index: RecordIndex): CollectionName => INDEXES[index].collection;

/** What the memory repository reads of the store (view.ts), named here so the two need not import each other. */
interface MemorySource {
  get<C extends CollectionName>(c: C, id: string): RecordTypes[C] | undefined;
  count(c: CollectionName): number;
  valuesInOrder<C extends CollectionName>(c: C): Array<RecordTypes[C]>;
  index(name: RecordIndex): SortedIndex<{ id: string }>;
}

/** The JSON store's records: its maps and sorted indexes, in memory. */
export function memoryRecords(store: MemorySource): RecordRepository {
  return {
    async get(c, id) {
      return store.get(c, id);
    },
    async page(name, partition, q) {
      const index = store.index(name);
      let entries = index.entries(partition);
      if (q.from || q.to) {
        // The entries are in key order, so a range is two binary searches.
        const lo = q.from ? index.seek(entries, q.from, false) : 0;
        const hi = q.to ? index.seek(entries, q.to, false) : entries.length;
        entries = entries.slice(lo, Math.max(lo, hi));
      }
      const start = q.after ? index.seek(entries, q.after, true) : 0;
      const filter = q.filter as ((rec: { id: string }) => boolean) | undefined;
      const { recs, last, more } = scanEntries(entries, start, q.limit, filter);
      return { items: recs as never[], last, more };
    },
    async count(name, partition) {
      return store.index(name).entries(partition).length;
    },
    async size(c) {
      return store.count(c);
    },
    async *stream(c) {
      yield* store.valuesInOrder(c);
    },
    async taken(c, ids) {
      return ids.filter((id) => store.get(c, id) !== undefined);
    },
  };
}
