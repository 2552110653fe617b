import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { Ability, Channel, OrderState } from '../contract/enums.js';
import type * as schemas from './schemas.js';

/** Every collection the store keeps; each record has an `id`. */
export const COLLECTIONS = [
  'users',
  'workspaces',
  'tokens',
  'listings',
  'forms',
  'pages',
  'knowledge_lists',
  'articles',
  'threads',
  'thread_messages',
  'bookings',
  'voice_interactions',
  'offers',
  'agents',
  'orders',
  'analytics_events',
  'payment_events',
  'idempotency_keys',
  'settings',
  'oauth_apps',
  'oauth_grants',
  'oauth_codes',
  // State that lived beside the collections until the store's interface (src/store/engine) took
  // every kind of state: the rate limits' buckets, the dashboard's sessions, the named snapshots'
  // list. Nothing writes them through the old paths, so they stay empty there.
  'rate_limit_buckets',
  'sessions',
  'named_snapshots',
] as const;
export type CollectionName = (typeof COLLECTIONS)[number];

/** A stable UUID (v4 shape) made from text: ids made for records (an article's versions, a pull's), the same on every run. */
export function madeId(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** `names` without `dropped`, in their order, each keeping its literal type. */
export function without<N extends string, D extends N>(names: readonly N[], dropped: readonly D[]): Exclude<N, D>[] {
  return names.filter((n): n is Exclude<N, D> => !(dropped as readonly N[]).includes(n));
}

/**
 * The collections a fixture holds, in dependency order (referenced before referencing, as
 * COLLECTIONS is): all but a thread's messages (a fixture's thread holds them) and the server's state.
 */
export const FIXTURE_COLLECTIONS = without(COLLECTIONS, [
  'thread_messages',
  'payment_events',
  'idempotency_keys',
  'settings',
  'oauth_codes',
  'rate_limit_buckets',
  'sessions',
  'named_snapshots',
]);
/** A fixture's collections of one workspace's records: all but the accounts (users, tokens, OAuth). */
export const WORKSPACE_COLLECTIONS = without(FIXTURE_COLLECTIONS, [
  'users',
  'workspaces',
  'tokens',
  'oauth_apps',
  'oauth_grants',
]);

/**
 * Collections whose records stay as bytes of the snapshot until first read: most of a big store's
 * bytes, needed a page or one record at a time, so start-up does not parse them. Their indexes
 * hold stubs (IndexDef.fields) until a record is read or written.
 */
export const LAZY_COLLECTIONS: ReadonlySet<CollectionName> = new Set<CollectionName>(['threads', 'thread_messages']);

/**
 * Collections the JSON engine keeps in memory only: read and written through transactions as the
 * others are, but never journaled nor written to its snapshot, so a restart starts them empty.
 * The rate limits' buckets: a single process forgetting how many requests a client made in the
 * last minute is harmless, and a bucket's durable write on every limited request would cost that
 * request a second journal line. (PostgreSQL keeps them in a table: its processes share them.)
 */
export const MEMORY_ONLY: ReadonlySet<CollectionName> = new Set<CollectionName>(['rate_limit_buckets']);

/** The simple records, as their schemas (schemas.ts) output them: one definition, with the contract's limits. */
export type UserRecord = z.output<typeof schemas.User>;
export type WorkspaceRecord = z.output<typeof schemas.Workspace>;
export type ListingRecord = z.output<typeof schemas.Listing>;
export type FormRecord = z.output<typeof schemas.Form>;
export type PageRecord = z.output<typeof schemas.Page>;
export type KnowledgeListRecord = z.output<typeof schemas.KnowledgeList>;
export type MessageRecord = z.output<typeof schemas.Message>;
export type BookingRecord = z.output<typeof schemas.Booking>;
export type VoiceInteractionRecord = z.output<typeof schemas.Voice>;
export type OfferRecord = z.output<typeof schemas.Offer>;
export type AgentRecord = z.output<typeof schemas.Agent>;

export interface TokenRecord {
  id: string;
  token_sha256: string;
  user_id: string;
  name: string;
  abilities: Ability[];
  expires_at: string | null;
  revoked_at: string | null;
  /** OAuth tokens only: the audience and the workspaces granted. */
  audience?: string;
  workspace_ids?: string[];
  /** OAuth tokens issued by this server: the authorization (grant) and application they came from. */
  grant_id?: string;
  client_id?: string;
}
export interface ArticleVersionRecord {
  id: string;
  number: number;
  title: string;
  body: string;
  published: boolean;
  restored_from: number | null;
  created_at: string;
}
export interface ArticleRecord {
  id: string;
  list_id: string;
  versions: ArticleVersionRecord[];
}
/**
 * A thread without its messages, which live apart in `thread_messages` (read only when one thread
 * is opened, and left unparsed in the snapshot until then). What lists show of the messages is
 * kept here, derived by `splitThread` (src/store/threads.ts) whenever a thread is written.
 */
export interface ThreadRecord {
  id: string;
  workspace_id: string;
  subject: string | null;
  status: 'open' | 'closed';
  unread: boolean;
  starred: boolean;
  contact: { id: string; name: string | null; email: string | null; phone: string | null };
  /** The channels of its messages, in CHANNELS order. */
  channels: Channel[];
  message_count: number;
  last_message_at: string | null;
  last_message_body: string | null;
}
/** A thread's messages, oldest first; `id` is the thread's. */
export interface ThreadMessagesRecord {
  id: string;
  messages: MessageRecord[];
}
export interface OrderRecord {
  id: string;
  workspace_id: string;
  offer_id: string;
  payment_state: OrderState;
  quantity: number;
  amount_total: number;
  currency: string;
  application_fee_amount: number;
  payment_intent_id: string;
  provider: 'local' | 'stripe';
  customer_name: string | null;
  customer_email: string | null;
  customer_message: string | null;
  marketing_consent: boolean;
  source_type: string | null;
  source_id: string | null;
  attribution: Record<string, unknown> | null;
  created_at: string;
  updated_at: string;
}
export interface AnalyticsEventRecord {
  id: string;
  type: 'agent.chat_opened';
  workspace_id: string;
  agent_id: string;
  button_id: string | null;
  app_id: string | null;
  occurred_at: string;
}
/** A payment notification already applied (each event id is applied once). */
export interface PaymentEventRecord {
  id: string;
  type: string;
  order_id: string | null;
  applied: boolean;
  received_at: string;
}
/** A finished public request, replayed for the same key and body for 24 hours. */
export interface IdempotencyRecord {
  id: string;
  operation_id: string;
  scope: string;
  key: string;
  body_sha256: string;
  status: number;
  response: unknown;
  created_at: string;
}
export interface SettingRecord {
  id: string;
  value: unknown;
}
/** A registered OAuth application; `id` is its client_id (`wcm_app_…`). */
export interface OAuthAppRecord {
  id: string;
  name: string;
  type: 'public' | 'confidential';
  redirect_uris: string[];
  /** Confidential clients only: SHA-256 of the secret (shown once, at creation). */
  client_secret_sha256: string | null;
  /** The owning workspace; null for a client that registered itself (RFC 7591). */
  workspace_id: string | null;
  /** The member who registered it through the API: they may delete it without the owner role. */
  created_by?: string | null;
  created_at: string;
}
/**
 * One authorization: what a user approved for an application (abilities, workspaces, audience),
 * and the family of tokens descended from its code. The current refresh token's hash rotates and
 * its generation counts up; a refresh token names its grant and generation, so an earlier one is
 * recognised (and revokes the family) without keeping a growing list of used hashes. The `refresh_*`
 * members are the state at the code exchange (or at revocation); once the grant has refreshed, its
 * newest token response holds the current one (oauth-tokens.ts, refreshStateOf).
 */
export interface OAuthGrantRecord {
  id: string;
  user_id: string;
  client_id: string;
  abilities: Ability[];
  workspace_ids: string[];
  audience: string;
  refresh_sha256: string | null;
  refresh_expires_at: string | null;
  /** The refresh token's generation: 0 from the code, one more per rotation. */
  refresh_generation: number;
  created_at: string;
  revoked_at: string | null;
}
/** An authorization code (hashed; `id` derives from the hash), single use, 60 s. */
export interface OAuthCodeRecord {
  id: string;
  code_sha256: string;
  client_id: string;
  redirect_uri: string;
  user_id: string;
  abilities: Ability[];
  workspace_ids: string[];
  resource: string;
  audience: string;
  code_challenge: string;
  expires_at: string;
  /** Set on first exchange, with the grant it created: a second use revokes that grant. */
  used_at: string | null;
  grant_id: string | null;
}

/** A rate limit's token bucket for one client on one route; `id` is `route|client` (no NUL: PostgreSQL text cannot hold one). */
export interface RateLimitBucketRecord {
  id: string;
  /** Tokens left, fractional. */
  tokens: number;
  /** When it was last refilled, epoch ms by the store's clock: it never moves backwards. */
  at: number;
}
/** A dashboard session; its CSRF token is derived from the id again when it is read. */
export interface SessionRecord {
  id: string;
  user_id: string;
  /** Epoch ms by the store's clock: one idle period after the last request. */
  expires_at: number;
  /** The mount path its cookie was set for. */
  path: string;
  /** The personal access token signed in with (off loopback), or null. */
  token_id: string | null;
  /** When its cookie was last (re)set, epoch ms. */
  cookie_at: number;
}
/** A named snapshot, as listed; its records are kept in the engine's own bulk form beside it. */
export interface NamedSnapshotRecord {
  id: string;
  created_at: string;
  /** How many records it holds. */
  records: number;
  /** The size of its records' documents, in bytes (what `GET /_emulator/snapshots` lists). */
  bytes?: number;
}

export interface RecordTypes {
  users: UserRecord;
  workspaces: WorkspaceRecord;
  tokens: StoredToken;
  listings: ListingRecord;
  forms: FormRecord;
  pages: PageRecord;
  knowledge_lists: KnowledgeListRecord;
  articles: ArticleRecord;
  threads: ThreadRecord;
  thread_messages: ThreadMessagesRecord;
  bookings: BookingRecord;
  voice_interactions: VoiceInteractionRecord;
  offers: OfferRecord;
  agents: AgentRecord;
  orders: OrderRecord;
  analytics_events: AnalyticsEventRecord;
  payment_events: PaymentEventRecord;
  idempotency_keys: IdempotencyRecord;
  settings: SettingRecord;
  oauth_apps: OAuthAppRecord;
  oauth_grants: OAuthGrantRecord;
  oauth_codes: OAuthCodeRecord;
  rate_limit_buckets: RateLimitBucketRecord;
  sessions: SessionRecord;
  named_snapshots: NamedSnapshotRecord;
}

/** Writes inside one transaction. Records are replaced whole, never mutated in place. */
export interface Tx {
  get<C extends CollectionName>(c: C, id: string): RecordTypes[C] | undefined;
  put<C extends CollectionName>(c: C, rec: RecordTypes[C]): RecordTypes[C];
  delete(c: CollectionName, id: string): void;
  /** Deletes every record of `c` (a reset or a replacing import): on PostgreSQL, threads are not in memory to enumerate. */
  clear(c: CollectionName): void;
  /**
   * A bulk load's records of a lazy collection already written as snapshot lines (json/lazy-lines.ts),
   * taken as they are. False (nothing taken) when this store cannot: the caller puts them one by one.
   */
  putLines?(c: CollectionName, lines: { bytes(): Buffer; ids: string[]; offsets: number[] }): boolean;
}

/**
 * An access token of a grant, as stored since refreshes had to stay small (docs/security.md#oauth): it names
 * its grant instead of copying it; its user, audience, workspaces and (unless narrowed by `scope`)
 * abilities are the grant's, read when it authenticates. Tokens stored before keep their copies
 * (TokenRecord with `grant_id`); both shapes are read. The absent members are typed so that code
 * reading the collection sees them as possibly missing.
 *
 * A refresh's token response is this one record: the access token, and the refresh token issued
 * with it (its generation and hash; it expires REFRESH_SECONDS after the response, that is
 * REFRESH_SECONDS - ACCESS_SECONDS after `expires_at`). The grant's newest such record holds its
 * current refresh token (index `refreshesByGrant`, oauth-tokens.ts), so a refresh does not rewrite the grant.
 */
export interface GrantTokenRecord {
  id: string;
  token_sha256: string;
  grant_id: string;
  expires_at: string;
  /** Only when narrower than the grant's. */
  abilities?: Ability[];
  /** Only once revoked (RFC 7009 revokes an access token alone; its refresh token lives on). */
  revoked_at?: string | null;
  /** Only from a refresh: the refresh token issued with it. */
  generation?: number;
  refresh_sha256?: string;
  user_id?: undefined;
  name?: undefined;
  audience?: undefined;
  workspace_ids?: undefined;
  client_id?: undefined;
}
/** What the `tokens` collection holds. */
export type StoredToken = TokenRecord | GrantTokenRecord;
