import type { CollectionName, RecordTypes } from './records.js';

/**
 * The sorted index list operations page through: entries kept in key order per partition, with
 * inserts merged lazily. What each index sorts by is declared in indexes.ts.
 */

export type SortKey = ReadonlyArray<string | number | null>;

/**
 * A sorted view of one collection, partitioned (for example by workspace). `R` is what the index
 * holds of each record: the record itself, or, on a lazy collection (LAZY_COLLECTIONS), the
 * record's `fields` alone (its index stub), so start-up builds the index without parsing records.
 */
export interface IndexDef<C extends CollectionName = CollectionName, R extends { id: string } = RecordTypes[C]> {
  name: string;
  collection: C;
  /** Lazy collections only: every member `partition(s)` and `key` read, besides `id`. */
  fields?: ReadonlyArray<keyof R & string>;
  partition(rec: R): string;
  /**
   * When given, replaces `partition`: a record sits in every partition listed (or in none), so a
   * filter the index anticipates reads a pre-filtered list instead of scanning.
   */
  partitions?(rec: R): readonly string[];
  key(rec: R): SortKey;
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

/**
 * One keyset page of sorted entries: up to `limit` from position `start` that pass `filter`, the
 * last one's key, and whether another passing entry follows (the scan stops as soon as it knows).
 */
export function scanEntries<T>(
  entries: ReadonlyArray<IndexEntry<T>>,
  start: number,
  limit: number,
  filter?: (rec: T) => boolean,
): { recs: T[]; last: SortKey | null; more: boolean } {
  const recs: T[] = [];
  let last: SortKey | null = null;
  let i = start;
  for (; i < entries.length && recs.length < limit; i++) {
    if (filter && !filter(entries[i].rec)) continue;
    recs.push(entries[i].rec);
    last = entries[i].key;
  }
  let more = false;
  if (recs.length === limit) for (; i < entries.length && !more; i++) more = !filter || filter(entries[i].rec);
  return { recs, last, more };
}

/** Entries kept sorted by the index's order, each with its key precomputed. */
export interface IndexEntry<T> {
  key: SortKey;
  rec: T;
}

export class SortedIndex<T extends { id: string }> {
  private readonly parts = new Map<string, IndexEntry<T>[]>();
  /**
   * Inserts not yet merged into their partition. A bulk import (100k puts in one transaction)
   * would otherwise splice into a large sorted array once per record: quadratic. They are merged
   * on the next read of the partition, one by one when few, by sort and merge when many.
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

  private settled(partition: string): IndexEntry<T>[] | undefined {
    const add = this.pending.get(partition);
    if (!add) return this.parts.get(partition);
    const part = this.parts.get(partition) ?? [];
    this.pending.delete(partition);
    if (add.length <= 16) {
      for (const e of add) part.splice(this.seek(part, e.key, true), 0, e);
      this.parts.set(partition, part);
      return part;
    }
    add.sort((a, b) => this.cmp(a.key, b.key));
    const merged: IndexEntry<T>[] = new Array(part.length + add.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < part.length && j < add.length)
      merged[k++] = this.cmp(add[j].key, part[i].key) < 0 ? add[j++] : part[i++];
    while (i < part.length) merged[k++] = part[i++];
    while (j < add.length) merged[k++] = add[j++];
    this.parts.set(partition, merged);
    return merged;
  }

  entries(partition: string): ReadonlyArray<IndexEntry<T>> {
    return this.settled(partition) ?? [];
  }

  private partsOf(rec: T): readonly string[] {
    return this.def.partitions ? this.def.partitions(rec as never) : [this.def.partition(rec as never)];
  }

  remove(rec: T): void {
    const key = this.def.key(rec as never);
    for (const p of this.partsOf(rec)) {
      const part = this.settled(p);
      if (!part) continue;
      let i = this.seek(part, key, false);
      while (i < part.length && part[i].rec.id !== rec.id && this.cmp(part[i].key, key) === 0) i++;
      if (i < part.length && part[i].rec.id === rec.id) part.splice(i, 1);
    }
  }

  insert(rec: T): void {
    const key = this.def.key(rec as never);
    for (const p of this.partsOf(rec)) {
      let add = this.pending.get(p);
      if (!add) this.pending.set(p, (add = []));
      add.push({ key, rec });
    }
  }

  /** Every entry's record, partition by partition (a record in several partitions comes once per partition). */
  *all(): Iterable<T> {
    for (const p of [...this.parts.keys(), ...this.pending.keys()]) for (const e of this.entries(p)) yield e.rec;
  }

  /** `recs` sorted as this index orders them (across partitions): how the snapshot writes them. */
  order(recs: T[]): T[] {
    const keyed = recs.map((rec) => ({ key: this.def.key(rec as never), rec }));
    keyed.sort((x, y) => this.cmp(x.key, y.key));
    return keyed.map((e) => e.rec);
  }

  /** Drops every entry and loads `recs` afresh (after a bulk write). */
  reset(recs: Iterable<T>): void {
    this.parts.clear();
    this.pending.clear();
    this.load(recs);
  }

  /** Bulk load: append everything, then sort once (start-up with 100k records). */
  load(recs: Iterable<T>): void {
    for (const rec of recs) {
      const key = this.def.key(rec as never);
      for (const p of this.partsOf(rec)) {
        let part = this.parts.get(p);
        if (!part) this.parts.set(p, (part = []));
        part.push({ key, rec });
      }
    }
    for (const part of this.parts.values()) part.sort((a, b) => this.cmp(a.key, b.key));
  }
}
