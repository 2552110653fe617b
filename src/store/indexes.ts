import type { CollectionName, RecordTypes } from './records.js';

export type SortKey = ReadonlyArray<string | number | null>;

/** A sorted view of one collection, partitioned (for example by workspace). */
export interface IndexDef<C extends CollectionName = CollectionName> {
  name: string;
  collection: C;
  partition(rec: RecordTypes[C]): string;
  /**
   * When given, replaces `partition`: a record sits in every partition listed (or in none), so a
   * filter the index anticipates reads a pre-filtered list instead of scanning.
   */
  partitions?(rec: RecordTypes[C]): readonly string[];
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
// Articles sort by creation (version 1), not by their current version: a restore must not move an
// article past a cursor, or paging would skip it.
const firstVersionAt = (a: RecordTypes['articles']) => a.versions[0]?.created_at ?? null;

/**
 * The partitions of a thread in `threadsByFilter`: `workspace|view|channel`, for every view it shows
 * in (inbox = open, unread = open and unread, starred, closed) crossed with `*` and each channel it
 * has a message on. Each view × channel filter of listThreads then reads one sorted list.
 */
export function threadFilterPartitions(t: RecordTypes['threads']): string[] {
  const views: string[] = [];
  if (t.status === 'open') views.push('inbox');
  if (t.status === 'open' && t.unread) views.push('unread');
  if (t.starred) views.push('starred');
  if (t.status === 'closed') views.push('closed');
  const channels = ['*', ...new Set(t.messages.map((m) => m.channel))];
  const out: string[] = [];
  for (const v of views) for (const c of channels) out.push(threadFilterPartition(t.workspace_id, v, c));
  return out;
}
export const threadFilterPartition = (workspace: string, view: string, channel: string | undefined) => `${workspace}|${view}|${channel ?? '*'}`;

/** The indexes list operations page through. Sort keys always end in `id`: a stable tie-break. */
export const INDEXES = {
  listingsByWorkspace: { name: 'listingsByWorkspace', collection: 'listings', partition: (r) => r.workspace_id, key: (r) => [r.created_at, r.id], order: 'desc' } as IndexDef<'listings'>,
  articlesByList: { name: 'articlesByList', collection: 'articles', partition: (r) => r.list_id, key: (r) => [firstVersionAt(r), r.id], order: 'desc' } as IndexDef<'articles'>,
  threadsByWorkspace: { name: 'threadsByWorkspace', collection: 'threads', partition: (r) => r.workspace_id, key: (r) => [lastMessageAt(r), r.id], order: 'desc' } as IndexDef<'threads'>,
  threadsByFilter: { name: 'threadsByFilter', collection: 'threads', partition: (r) => r.workspace_id, partitions: threadFilterPartitions, key: (r) => [lastMessageAt(r), r.id], order: 'desc' } as IndexDef<'threads'>,
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
    const part = this.parts.get(partition) ?? [];
    if (!add) return this.parts.get(partition);
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
    while (i < part.length && j < add.length) merged[k++] = this.cmp(add[j].key, part[i].key) < 0 ? add[j++] : part[i++];
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
