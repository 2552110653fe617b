import { refreshesByGrant } from './oauth-tokens.js';
import { LAZY_COLLECTIONS, type CollectionName, type RecordTypes, type ThreadRecord } from './records.js';
import { CHANNELS, THREAD_VIEWS } from '../contract/enums.js';
import { SortedIndex, type IndexDef } from './sorted-index.js';

// json/store.ts takes the index type from here, beside the definitions.
export type { SortedIndex };

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

/** What the threads-by-contact index holds of a thread. */
export type ThreadContactKeys = Pick<ThreadRecord, 'id' | 'workspace_id' | 'contact' | 'last_message_at'>;
const THREAD_CONTACT_FIELDS = ['workspace_id', 'contact', 'last_message_at'] as const satisfies ReadonlyArray<
  keyof ThreadContactKeys
>;

/** The `threadsByContact` partitions of a contact in a workspace: by its id, and by its e-mail address (any case) when it has one. */
export function threadContactPartitions(workspace: string, contact: { id: string; email: string | null }): string[] {
  const out = [`${workspace}|id|${contact.id}`];
  if (contact.email) out.push(`${workspace}|email|${contact.email.toLowerCase()}`);
  return out;
}

/** The `pagesByWorkspace` partition of a workspace's published (or unpublished) pages. */
export const pagesPartition = (workspace: string, published: boolean) =>
  `${workspace}|${published ? 'published' : 'unpublished'}`;

/** Definitions keyed by their names, each given its key as `name` (first, as if written there). */
function named<T extends Record<string, object>>(defs: T): { [K in keyof T]: { name: K } & T[K] } {
  return Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, { name, ...def }])) as never;
}
type Unnamed<T> = Omit<T, 'name'>;

/** The indexes list operations page through. Sort keys always end in `id`: a stable tie-break. */
export const INDEXES = named({
  listingsByWorkspace: {
    collection: 'listings',
    partition: (r) => r.workspace_id,
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'listings'>>,
  articlesByList: {
    collection: 'articles',
    partition: (r) => r.list_id,
    key: (r) => [firstVersionAt(r), r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'articles'>>,
  threadsByFilter: {
    collection: 'threads',
    fields: THREAD_KEY_FIELDS,
    partition: (r) => r.workspace_id,
    partitions: threadFilterPartitions,
    key: (r) => [r.last_message_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'threads', ThreadKeys>>,
  bookingsByWorkspace: {
    collection: 'bookings',
    partition: (r) => r.workspace_id,
    key: (r) => [r.starts_at, r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'bookings'>>,
  voiceByWorkspace: {
    collection: 'voice_interactions',
    partition: (r) => r.workspace_id,
    key: (r) => [r.started_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'voice_interactions'>>,
  // Forms and pages have no creation time: most recently updated first, never-updated (null) last.
  // An update moves a record to the top, so a pager already past the top does not see it again.
  formsByWorkspace: {
    collection: 'forms',
    partition: (r) => r.workspace_id,
    key: (r) => [r.updated_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'forms'>>,
  // Also by published state, so `published=true|false` reads a pre-filtered list.
  pagesByWorkspace: {
    collection: 'pages',
    partition: (r) => r.workspace_id,
    partitions: (r) => [r.workspace_id, pagesPartition(r.workspace_id, r.published)],
    key: (r) => [r.updated_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'pages'>>,
  // No timestamps at all, and nothing renames them: by name (case-folded), then id.
  knowledgeListsByWorkspace: {
    collection: 'knowledge_lists',
    partition: (r) => r.workspace_id,
    key: (r) => [r.name.toLowerCase(), r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'knowledge_lists'>>,
  offersByWorkspace: {
    collection: 'offers',
    partition: (r) => r.workspace_id,
    key: (r) => [r.title.toLowerCase(), r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'offers'>>,
  agentsByWorkspace: {
    collection: 'agents',
    partition: (r) => r.workspace_id,
    key: (r) => [r.name.toLowerCase(), r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'agents'>>,
  ordersByCreated: {
    collection: 'orders',
    partition: () => '*',
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'orders'>>,
  // A self-registered client (RFC 7591) has no workspace: partition '' keeps it out of every list.
  oauthAppsByWorkspace: {
    collection: 'oauth_apps',
    partition: (r) => r.workspace_id ?? '',
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'oauth_apps'>>,
  // Only live grants: a revoked one leaves the user's list.
  oauthGrantsByUser: {
    collection: 'oauth_grants',
    partition: (r) => (r.revoked_at ? '' : r.user_id),
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'oauth_grants'>>,
  refreshesByGrant,
  // A workspace in the partition of each of its members: the workspaces a user belongs to, by
  // name (case-folded), then id, without reading any other workspace.
  workspacesByMember: {
    collection: 'workspaces',
    partition: (r) => r.members[0]?.user_id ?? '',
    partitions: (r) => [...new Set(r.members.map((m) => m.user_id))],
    key: (r) => [r.name.toLowerCase(), r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'workspaces'>>,
  // Every user, by name (case-folded), then id: the account chooser of a loopback server's sign-in.
  usersByName: {
    collection: 'users',
    partition: () => '*',
    key: (r) => [r.name.toLowerCase(), r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'users'>>,
  // Sessions by when they end, soonest first: starting one drops the expired ones and, at the cap,
  // the one idle longest, without reading the others.
  sessionsByExpiry: {
    collection: 'sessions',
    partition: () => '*',
    key: (r) => [r.expires_at, r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'sessions'>>,
  // OAuth housekeeping (server/oauth/models/prune.ts) and lookups that must not scan a collection.
  // Codes by expiry: the expired ones are the prefix before now.
  oauthCodesByExpiry: {
    collection: 'oauth_codes',
    partition: () => '*',
    key: (r) => [r.expires_at, r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'oauth_codes'>>,
  // OAuth access tokens (those naming a grant) by expiry; personal tokens are in no partition.
  tokensByExpiry: {
    collection: 'tokens',
    partition: () => '*',
    partitions: (r) => (r.grant_id ? ['*'] : []),
    key: (r) => [r.expires_at ?? null, r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'tokens'>>,
  // Every token of a grant, whatever its shape: removing a grant removes them.
  tokensByGrant: {
    collection: 'tokens',
    partition: (r) => r.grant_id ?? '',
    partitions: (r) => (r.grant_id ? [r.grant_id] : []),
    key: (r) => [r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'tokens'>>,
  // Every grant of an application, revoked or not.
  oauthGrantsByClient: {
    collection: 'oauth_grants',
    partition: (r) => r.client_id,
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'oauth_grants'>>,
  // Revoked grants by when: those revoked before a time are the prefix.
  oauthGrantsByRevoked: {
    collection: 'oauth_grants',
    partition: () => '*',
    partitions: (r) => (r.revoked_at ? ['*'] : []),
    key: (r) => [r.revoked_at, r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'oauth_grants'>>,
  eventsByOccurred: {
    collection: 'analytics_events',
    partition: () => '*',
    key: (r) => [r.occurred_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'analytics_events'>>,
  // The orders of one payment intent (one, as a rule): a notification naming only its intent finds its order.
  ordersByPaymentIntent: {
    collection: 'orders',
    partition: (r) => r.payment_intent_id,
    key: (r) => [r.created_at, r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'orders'>>,
  // Oldest first, so the idempotency records past their 24 h are the front of one list (pruning).
  idempotencyByCreated: {
    collection: 'idempotency_keys',
    partition: () => '*',
    key: (r) => [r.created_at, r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'idempotency_keys'>>,
  // Least recently used first: a bucket untouched for a whole window is full, and can go.
  bucketsByAt: {
    collection: 'rate_limit_buckets',
    partition: () => '*',
    key: (r) => [r.at, r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'rate_limit_buckets'>>,
  // The workspaces that have an owner (`wcm local token` issues a token to the first one's owner).
  workspacesWithOwner: {
    collection: 'workspaces',
    partition: (r) => (r.members.some((m) => m.role === 'owner') ? '*' : ''),
    key: (r) => [r.id],
    order: 'asc',
  } as Unnamed<IndexDef<'workspaces'>>,
  // The dashboard's reads. One workspace's orders and analytics events, newest first (the indexes above span workspaces).
  ordersByWorkspace: {
    collection: 'orders',
    partition: (r) => r.workspace_id,
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'orders'>>,
  eventsByWorkspace: {
    collection: 'analytics_events',
    partition: (r) => r.workspace_id,
    key: (r) => [r.occurred_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'analytics_events'>>,
  // Every grant that names a workspace, revoked ones too (the dashboard shows their state).
  oauthGrantsByWorkspace: {
    collection: 'oauth_grants',
    partition: () => '',
    partitions: (r) => r.workspace_ids,
    key: (r) => [r.created_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'oauth_grants'>>,
  // A workspace's threads by their contact: `workspace|id|CONTACT_ID` and, with an e-mail address,
  // `workspace|email|ADDRESS` (lower case); newest activity first, as the inbox.
  threadsByContact: {
    collection: 'threads',
    fields: THREAD_CONTACT_FIELDS,
    partition: () => '',
    partitions: (r) => threadContactPartitions(r.workspace_id, r.contact),
    key: (r) => [r.last_message_at, r.id],
    order: 'desc',
  } as Unnamed<IndexDef<'threads', ThreadContactKeys>>,
});
export type IndexName = keyof typeof INDEXES;
/** What index `N`'s entries hold of each record. */
export type IndexedRecord<N extends IndexName> =
  (typeof INDEXES)[N] extends IndexDef<CollectionName, infer R> ? R : never;

/** A state's indexes: one per definition, by name and by collection, and each lazy collection's stub members. */
export interface IndexSet {
  byName: Map<IndexName, SortedIndex<{ id: string }>>;
  byCollection: Map<CollectionName, SortedIndex<{ id: string }>[]>;
  /** Lazy collections with indexes: the members the indexes read (the stub of each record). */
  stubFields: Map<CollectionName, readonly string[]>;
}

/** Empty indexes for every definition in INDEXES. */
export function createIndexSet(): IndexSet {
  const set: IndexSet = { byName: new Map(), byCollection: new Map(), stubFields: new Map() };
  for (const [name, def] of Object.entries(INDEXES)) {
    if (LAZY_COLLECTIONS.has(def.collection)) {
      // The index is built from stubs at start-up: it must say which members it reads.
      const fields = (def as { fields?: readonly string[] }).fields;
      if (!fields)
        throw new Error(`index ${name} is on lazy collection ${def.collection} but does not list its \`fields\``);
      set.stubFields.set(def.collection, [...new Set([...(set.stubFields.get(def.collection) ?? []), ...fields])]);
    }
    const idx = new SortedIndex<{ id: string }>(def as never);
    set.byName.set(name as IndexName, idx);
    const list = set.byCollection.get(def.collection) ?? [];
    list.push(idx);
    set.byCollection.set(def.collection, list);
  }
  return set;
}

/** A record's index stub: its id and the `fields` the indexes of its lazy collection read. */
export function stubOf(rec: { id: string }, fields: readonly string[]): { id: string } {
  const out: Record<string, unknown> = { id: rec.id };
  for (const f of fields) out[f] = (rec as unknown as Record<string, unknown>)[f];
  return out as { id: string };
}

/**
 * A unique index: each record of `collection` has at most one key (null: none), and no two records
 * share one. The store's interface finds a record by it (`tx.find`), and a write that would give a
 * second record the same key fails with a ConflictError (src/store/engine).
 */
export interface LookupDef<C extends CollectionName = CollectionName> {
  name: string;
  collection: C;
  key(rec: RecordTypes[C]): string | null;
}

/** The unique indexes. Not on lazy collections: the JSON engine builds each from its records on first use. */
export const LOOKUPS = named({
  // A token's id derives from a prefix of its hash (server/auth.ts); the whole hash is unique too.
  tokensBySha256: { collection: 'tokens', key: (r) => r.token_sha256 } as Unnamed<LookupDef<'tokens'>>,
  oauthCodesBySha256: { collection: 'oauth_codes', key: (r) => r.code_sha256 } as Unnamed<LookupDef<'oauth_codes'>>,
  // A grant's refresh token as of the code exchange (tokens of the older format are found by it).
  oauthGrantsByRefreshSha256: {
    collection: 'oauth_grants',
    key: (r) => r.refresh_sha256,
  } as Unnamed<LookupDef<'oauth_grants'>>,
});
export type LookupName = keyof typeof LOOKUPS;

/** Each collection's unique indexes. */
export const LOOKUPS_OF: ReadonlyMap<CollectionName, ReadonlyArray<LookupDef & { name: LookupName }>> = (() => {
  const out = new Map<CollectionName, Array<LookupDef & { name: LookupName }>>();
  for (const def of Object.values(LOOKUPS) as Array<LookupDef & { name: LookupName }>) {
    if (LAZY_COLLECTIONS.has(def.collection))
      throw new Error(`lookup ${def.name} is on lazy collection ${def.collection}`);
    out.set(def.collection, [...(out.get(def.collection) ?? []), def]);
  }
  return out;
})();
