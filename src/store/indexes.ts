import type { CollectionName, RecordTypes } from './records.js';

export type SortKey = ReadonlyArray<string | number | null>;

/** A sorted view of one collection, partitioned (for example by workspace). */
export interface IndexDef<C extends CollectionName = CollectionName> {
  name: string;
  collection: C;
  partition(rec: RecordTypes[C]): string;
  key(rec: RecordTypes[C]): SortKey;
  order: 'asc' | 'desc';
}

function cmpValue(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

export function compareKeys(a: SortKey, b: SortKey): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = cmpValue(a[i], b[i]);
    if (c) return c;
  }
  return a.length - b.length;
}

const lastMessageAt = (t: RecordTypes['threads']) => t.messages[t.messages.length - 1]?.created_at ?? null;
const currentVersionAt = (a: RecordTypes['articles']) => a.versions[a.versions.length - 1]?.created_at ?? null;

/** The indexes list operations page through. Sort keys always end in `id`: a stable tie-break. */
export const INDEXES = {
  listingsByWorkspace: { name: 'listingsByWorkspace', collection: 'listings', partition: (r) => r.workspace_id, key: (r) => [r.created_at, r.id], order: 'desc' } as IndexDef<'listings'>,
  articlesByList: { name: 'articlesByList', collection: 'articles', partition: (r) => r.list_id, key: (r) => [currentVersionAt(r), r.id], order: 'desc' } as IndexDef<'articles'>,
  threadsByWorkspace: { name: 'threadsByWorkspace', collection: 'threads', partition: (r) => r.workspace_id, key: (r) => [lastMessageAt(r), r.id], order: 'desc' } as IndexDef<'threads'>,
  bookingsByWorkspace: { name: 'bookingsByWorkspace', collection: 'bookings', partition: (r) => r.workspace_id, key: (r) => [r.starts_at, r.id], order: 'asc' } as IndexDef<'bookings'>,
  voiceByWorkspace: { name: 'voiceByWorkspace', collection: 'voice_interactions', partition: (r) => r.workspace_id, key: (r) => [r.started_at, r.id], order: 'desc' } as IndexDef<'voice_interactions'>,
  ordersByCreated: { name: 'ordersByCreated', collection: 'orders', partition: () => '*', key: (r) => [r.created_at, r.id], order: 'desc' } as IndexDef<'orders'>,
  eventsByOccurred: { name: 'eventsByOccurred', collection: 'analytics_events', partition: () => '*', key: (r) => [r.occurred_at, r.id], order: 'desc' } as IndexDef<'analytics_events'>,
} as const;
export type IndexName = keyof typeof INDEXES;

/** Entries kept sorted by the index's order, each with its key precomputed. */
export interface IndexEntry<T> { key: SortKey; rec: T }

export class SortedIndex<T extends { id: string }> {
  private readonly parts = new Map<string, IndexEntry<T>[]>();
  /**
   * Inserts not yet merged into their partition. A transaction that puts many records (a fixture
   * import of 100,000 threads) would otherwise splice each one into a large sorted array: O(n²)
   * moves, 12 s of a 100,000-thread `--seed`. They are sorted and merged in one pass when the
   * partition is next read or a record is removed from it.
   */
  private readonly pending = new Map<string, IndexEntry<T>[]>();
  constructor(readonly def: IndexDef) {}

  private cmp(a: SortKey, b: SortKey): number {
    const c = compareKeys(a, b);
    return this.def.order === 'asc' ? c : -c;
  }

  /** First position whose key sorts after `key` (strictly) when `after`, else at or after. */
  seek(entries: ReadonlyArray<IndexEntry<T>>, key: SortKey, after: boolean): number {
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.cmp(entries[mid].key, key);
      if (c < 0 || (after && c === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The partition with every insert merged in. */
  private settled(partition: string): IndexEntry<T>[] | undefined {
    const part = this.parts.get(partition);
    const add = this.pending.get(partition);
    if (!add) return part;
    this.pending.delete(partition);
    if (!part) {
      add.sort((a, b) => this.cmp(a.key, b.key));
      this.parts.set(partition, add);
      return add;
    }
    if (add.length < 8) {
      for (const e of add) part.splice(this.seek(part, e.key, true), 0, e);
      return part;
    }
    add.sort((a, b) => this.cmp(a.key, b.key));
    const merged: IndexEntry<T>[] = new Array(part.length + add.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < part.length && j < add.length) merged[k++] = this.cmp(add[j].key, part[i].key) < 0 ? add[j++] : part[i++];
    while (i < part.length) merged[k++] = part[i++];
    while (j < add.length) merged[k++] = add[j++];
    this.parts.set(partition, merged);
    return merged;
  }

  entries(partition: string): ReadonlyArray<IndexEntry<T>> {
    return this.settled(partition) ?? [];
  }

  remove(rec: T): void {
    const part = this.settled(this.def.partition(rec as never));
    if (!part) return;
    const key = this.def.key(rec as never);
    let i = this.seek(part, key, false);
    while (i < part.length && part[i].rec.id !== rec.id && this.cmp(part[i].key, key) === 0) i++;
    if (i < part.length && part[i].rec.id === rec.id) part.splice(i, 1);
  }

  insert(rec: T): void {
    const p = this.def.partition(rec as never);
    const add = this.pending.get(p);
    const e = { key: this.def.key(rec as never), rec };
    if (add) add.push(e);
    else this.pending.set(p, [e]);
  }

  /** Bulk load: append everything, then sort once (start-up with 100k records). */
  load(recs: Iterable<T>): void {
    for (const rec of recs) this.insert(rec);
    for (const p of [...this.pending.keys()]) this.settled(p);
  }
}
