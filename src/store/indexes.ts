import { refreshesByGrant } from './oauth-tokens.js';
import type { CollectionName, RecordTypes, ThreadRecord } from './records.js';
import { CHANNELS, THREAD_VIEWS } from '../contract/enums.js';

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

/** What the threads index holds of a thread; entries may be just these members, so read the record with `store.get`. */
export type ThreadKeys = Pick<
  ThreadRecord,
  'id' | 'workspace_id' | 'status' | 'unread' | 'starred' | 'channels' | 'last_message_at'
>;
const THREAD_KEY_FIELDS = [
  'workspace_id',
  'status',
  'unread',
  'starred',
  'channels',
  'last_message_at',
] as const satisfies ReadonlyArray<keyof ThreadKeys>;

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

// Articles sort by creation (version 1), not by their current version: a restore must not move an
// article past a cursor, or paging would skip it.
const firstVersionAt = (a: RecordTypes['articles']) => a.versions[0]?.created_at ?? null;

/**
 * The partitions of a thread in `threadsByFilter`: `workspace|view|channel`, for every view it shows
 * in (inbox = open, unread = open and unread, starred, closed) crossed with `*` and each channel it
 * has a message on. Each view × channel filter of listThreads then reads one sorted list.
 */
export function threadFilterPartitions(t: ThreadKeys): string[] {
  const names = partitionNames(t.workspace_id);
  const out: string[] = [];
  const add = (view: number) => {
    out.push(names[view * SLOTS]);
    for (const c of t.channels) out.push(names[view * SLOTS + 1 + CHANNELS.indexOf(c)]);
  };
  if (t.status === 'open') add(0);
  if (t.status === 'open' && t.unread) add(1);
  if (t.starred) add(2);
  if (t.status === 'closed') add(3);
  return out;
}

/**
 * A workspace's partition names, made once: start-up files 100,000 threads into several
 * partitions each, and reusing the strings (with their hashes) halves the index build.
 */
/** Per view: `*`, then each channel in CHANNELS order. */
const SLOTS = 1 + CHANNELS.length;
const namesByWorkspace = new Map<string, string[]>();
function partitionNames(workspace: string): string[] {
  let names = namesByWorkspace.get(workspace);
  if (!names) {
    names = THREAD_VIEWS.flatMap((v) => ['*', ...CHANNELS].map((c) => threadFilterPartition(workspace, v, c)));
    namesByWorkspace.set(workspace, names);
  }
  return names;
}
export const threadFilterPartition = (workspace: string, view: string, channel: string | undefined) =>
  `${workspace}|${view}|${channel ?? '*'}`;

/** The `pagesByWorkspace` partition of a workspace's published (or unpublished) pages. */
export const pagesPartition = (workspace: string, published: boolean) =>
  `${workspace}|${published ? 'published' : 'unpublished'}`;

/** The indexes list operations page through. Sort keys always end in `id`: a stable tie-break. */
export const INDEXES = {
  listingsByWorkspace: {
    name: 'listingsByWorkspace',
    collection: 'listings',
    partition: (r) => r.workspace_id,
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as IndexDef<'listings'>,
  articlesByList: {
    name: 'articlesByList',
    collection: 'articles',
    partition: (r) => r.list_id,
    key: (r) => [firstVersionAt(r), r.id],
    order: 'desc',
  } as IndexDef<'articles'>,
  threadsByFilter: {
    name: 'threadsByFilter',
    collection: 'threads',
    fields: THREAD_KEY_FIELDS,
    partition: (r) => r.workspace_id,
    partitions: threadFilterPartitions,
    key: (r) => [r.last_message_at, r.id],
    order: 'desc',
  } as IndexDef<'threads', ThreadKeys>,
  bookingsByWorkspace: {
    name: 'bookingsByWorkspace',
    collection: 'bookings',
    partition: (r) => r.workspace_id,
    key: (r) => [r.starts_at, r.id],
    order: 'asc',
  } as IndexDef<'bookings'>,
  voiceByWorkspace: {
    name: 'voiceByWorkspace',
    collection: 'voice_interactions',
    partition: (r) => r.workspace_id,
    key: (r) => [r.started_at, r.id],
    order: 'desc',
  } as IndexDef<'voice_interactions'>,
  // Forms and pages have no creation time: most recently updated first, never-updated (null) last.
  // An update moves a record to the top, so a pager already past the top does not see it again.
  formsByWorkspace: {
    name: 'formsByWorkspace',
    collection: 'forms',
    partition: (r) => r.workspace_id,
    key: (r) => [r.updated_at, r.id],
    order: 'desc',
  } as IndexDef<'forms'>,
  // Also by published state, so `published=true|false` reads a pre-filtered list.
  pagesByWorkspace: {
    name: 'pagesByWorkspace',
    collection: 'pages',
    partition: (r) => r.workspace_id,
    partitions: (r) => [r.workspace_id, pagesPartition(r.workspace_id, r.published)],
    key: (r) => [r.updated_at, r.id],
    order: 'desc',
  } as IndexDef<'pages'>,
  // No timestamps at all, and nothing renames them: by name (case-folded), then id.
  knowledgeListsByWorkspace: {
    name: 'knowledgeListsByWorkspace',
    collection: 'knowledge_lists',
    partition: (r) => r.workspace_id,
    key: (r) => [r.name.toLowerCase(), r.id],
    order: 'asc',
  } as IndexDef<'knowledge_lists'>,
  offersByWorkspace: {
    name: 'offersByWorkspace',
    collection: 'offers',
    partition: (r) => r.workspace_id,
    key: (r) => [r.title.toLowerCase(), r.id],
    order: 'asc',
  } as IndexDef<'offers'>,
  agentsByWorkspace: {
    name: 'agentsByWorkspace',
    collection: 'agents',
    partition: (r) => r.workspace_id,
    key: (r) => [r.name.toLowerCase(), r.id],
    order: 'asc',
  } as IndexDef<'agents'>,
  ordersByCreated: {
    name: 'ordersByCreated',
    collection: 'orders',
    partition: () => '*',
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as IndexDef<'orders'>,
  // A self-registered client (RFC 7591) has no workspace: partition '' keeps it out of every list.
  oauthAppsByWorkspace: {
    name: 'oauthAppsByWorkspace',
    collection: 'oauth_apps',
    partition: (r) => r.workspace_id ?? '',
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as IndexDef<'oauth_apps'>,
  // Only live grants: a revoked one leaves the user's list.
  oauthGrantsByUser: {
    name: 'oauthGrantsByUser',
    collection: 'oauth_grants',
    partition: (r) => (r.revoked_at ? '' : r.user_id),
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as IndexDef<'oauth_grants'>,
  refreshesByGrant,
  eventsByOccurred: {
    name: 'eventsByOccurred',
    collection: 'analytics_events',
    partition: () => '*',
    key: (r) => [r.occurred_at, r.id],
    order: 'desc',
  } as IndexDef<'analytics_events'>,
} as const;
export type IndexName = keyof typeof INDEXES;
/** What index `N`'s entries hold of each record. */
export type IndexedRecord<N extends IndexName> =
  (typeof INDEXES)[N] extends IndexDef<CollectionName, infer R> ? R : never;

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
