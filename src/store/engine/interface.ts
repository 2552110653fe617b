/*
 * The store's interface: what a handler sees of the store, whichever engine keeps it (the JSON
 * file, src/store/json; PostgreSQL, src/store/postgres). Reads run in `store.read(fn)`, a request's
 * writes in one `store.write(fn)`; inside, `tx` reads and writes typed collections. There are no
 * declared reads: a transaction reads what it needs as it goes, and sees its own writes.
 *
 * The collections and their record types are one schema map (records.ts: COLLECTIONS and
 * RecordTypes), and so are the indexes (indexes.ts: INDEXES, which list operations page through,
 * and LOOKUPS, the unique indexes `find` reads): a wrong collection, index or record shape is a
 * type error.
 *
 * Rules for `fn`:
 * - An engine may run `fn` more than once (PostgreSQL retries a transaction that lost a
 *   serialization conflict or a deadlock), so `fn` touches nothing outside `tx`: it sends nothing,
 *   writes no file, changes no variable it did not make. What it returns is the answer.
 * - Records are replaced whole (`put`), never changed in place; the records `tx` returns are frozen.
 * - A ConflictError (a create of an id that exists, a unique key taken) ends the transaction: every
 *   later call on `tx` throws it again, and the write rejects with it, even if `fn` caught it.
 */
import {
  LOOKUPS_OF,
  type IndexedRecord,
  type IndexName,
  type INDEXES,
  type LOOKUPS,
  type LookupName,
} from '../indexes.js';
import { COLLECTIONS, FIXTURE_COLLECTIONS, type CollectionName, type RecordTypes } from '../records.js';
import type { SortKey } from '../sorted-index.js';

export type { CollectionName, RecordTypes, SortKey };

/** The indexes (INDEXES) over collection `C`. */
export type IndexOf<C extends CollectionName> = {
  [N in IndexName]: (typeof INDEXES)[N]['collection'] extends C ? N : never;
}[IndexName];

/** The unique indexes (LOOKUPS) over collection `C`. */
export type LookupOf<C extends CollectionName> = {
  [N in LookupName]: (typeof LOOKUPS)[N]['collection'] extends C ? N : never;
}[LookupName];

/** One page along an index (a keyset page: `after` is the sort key of the last record seen). */
export interface PageQuery<T> {
  /** The index's partition (most are by workspace; indexes.ts says what each holds). */
  partition: string;
  /** The sort key of the last record of the previous page (a decoded cursor); none for the first page. */
  after?: SortKey | null;
  limit: number;
  /**
   * Only records passing this; the scan reads on in order until the page is full. It is given what
   * the index holds of each record (IndexedRecord: on the threads' index, only its sort and filter
   * members are sure to be there).
   */
  filter?: (rec: T) => boolean;
  /**
   * Only records whose searched fields (search.ts: SEARCHED; a collection without them refuses
   * it) hold this text by search.ts's rule, `matchesSearch`: case-insensitive substring of one
   * field. Empty matches every record. Unlike `filter`, each engine runs it where its records are
   * (PostgreSQL in SQL), so a search that matches few records reads no more than those.
   */
  search?: string;
  /** Only keys at or after `from` and before `to`, in the index's order (bookings' time range: `[starts_at]`). */
  from?: SortKey;
  to?: SortKey;
}

/** A page: the records in index order, the sort key of the last one, and whether another matching record follows. */
export interface Page<T> {
  items: T[];
  last: SortKey | null;
  more: boolean;
}

/** What a transaction reads. Every read sees the transaction's own writes. */
export interface ReadTx {
  get<C extends CollectionName>(c: C, id: string): Promise<RecordTypes[C] | undefined>;
  /** The record of `c` whose key in the unique index `index` is `key`. */
  find<C extends CollectionName>(c: C, index: LookupOf<C>, key: string): Promise<RecordTypes[C] | undefined>;
  /** One keyset page of the partition `q.partition` of index `index` over `c`. */
  page<C extends CollectionName, N extends IndexOf<C>>(
    c: C,
    index: N,
    q: PageQuery<IndexedRecord<N>>,
  ): Promise<Page<RecordTypes[C]>>;
  /** How many records `c` holds, or one partition of one of its indexes. */
  count<C extends CollectionName>(c: C, index?: IndexOf<C>, partition?: string): Promise<number>;
  /**
   * The store's time, epoch milliseconds: the engine's clock (the process's for the JSON file, the
   * database's for PostgreSQL) plus the emulator's offset (the setting CLOCK_OFFSET_SETTING).
   */
  now(): Promise<number>;
}

/** What a write transaction adds: replacing and deleting records. */
export interface WriteTx extends ReadTx {
  /** Writes `rec` (new, or replacing the record with its id). A unique key another record holds: ConflictError. */
  put<C extends CollectionName>(c: C, rec: RecordTypes[C]): Promise<RecordTypes[C]>;
  /** Writes `rec`, which must be new: a record with its id already there is a ConflictError. */
  create<C extends CollectionName>(c: C, rec: RecordTypes[C]): Promise<RecordTypes[C]>;
  /** Deletes the record, if there is one. */
  delete(c: CollectionName, id: string): Promise<void>;
}

/** A store behind the interface. */
export interface StoreEngine {
  /** Which engine: in messages and tests only; a handler never branches on it. */
  readonly kind: 'json' | 'postgres';
  /** Runs `fn` over a consistent view of the store. */
  read<T>(fn: (tx: ReadTx) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` as one transaction: it resolves with what `fn` returned once every write is durable;
   * if `fn` throws, nothing it wrote is kept. It may run `fn` again on a conflict (see above).
   */
  write<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T>;
  /**
   * Replaces every record of `collections` with `records` (a seed, an import, a reset), at once
   * for every reader: the JSON engine writes a big load as its snapshot (one transaction when
   * small), PostgreSQL empties the tables and COPYs the records in, in one transaction (readers
   * see the old records until it commits). A record outside `collections`, or two records sharing
   * an id or a unique key, is refused before anything changes (ConflictError for the latter).
   */
  load(collections: readonly CollectionName[], records: Iterable<Loaded>, options?: LoadOptions): Promise<boolean>;
  /** Named snapshots of the whole state (the control plane's `/_emulator/snapshots` and reset). */
  readonly snapshots: Snapshots;
  close(): Promise<void>;
}

/**
 * Named snapshots: a copy of every collection but the kept ones (SNAPSHOT_KEPT), saved under a
 * name and put back whole. A restore or a reset replaces every collection but the kept ones at
 * once: a reader (in this process or another) sees the state before it or after it, never a mix.
 * The JSON engine keeps each as a file beside the data file (`store.json.snapshots/NAME.json`);
 * PostgreSQL as copies of the tables in the database, for every process on it.
 */
export interface Snapshots {
  /** Saves the state now under `name` (a name saved before is replaced); what it holds. */
  save(name: string): Promise<SnapshotInfo>;
  /**
   * Replaces every collection but the kept ones by the snapshot `name`'s records; false (and
   * nothing changes) when there is no snapshot of that name. A snapshot that cannot be read is a
   * SnapshotUnreadableError, and nothing changes.
   */
  restore(name: string): Promise<boolean>;
  /** The snapshots, by name. */
  list(): Promise<SnapshotInfo[]>;
  /** Deletes the snapshot `name`; false when there was none. */
  delete(name: string): Promise<boolean>;
  /** Replaces every collection but the kept ones by `records` (none: an empty store; a seed's: the seed). */
  reset(records: Iterable<Loaded>): Promise<void>;
}

export interface SnapshotInfo {
  name: string;
  /** Its size: the file's on the JSON engine, the records' documents' on PostgreSQL. */
  bytes: number;
  saved_at: string;
}

/**
 * What a restore or a reset keeps: the settings (the admin token, the webhook secret, the seed
 * files, the clock offset) and the list of named snapshots.
 */
export const SNAPSHOT_KEPT: readonly CollectionName[] = ['settings', 'named_snapshots'];
/**
 * What a snapshot holds: what a fixture export does (records.ts, FIXTURE_COLLECTIONS), the
 * threads with their messages. A restore empties the other replaced collections (idempotency
 * records, OAuth codes, rate-limit buckets, sessions).
 */
export const SNAPSHOT_SAVED: ReadonlySet<CollectionName> = new Set<CollectionName>(
  FIXTURE_COLLECTIONS.flatMap((c) => (c === 'threads' ? [c, 'thread_messages' as const] : [c])),
);
/** The collections a restore or a reset replaces: all but SNAPSHOT_KEPT. */
export const SNAPSHOT_REPLACED: readonly CollectionName[] = COLLECTIONS.filter((c) => !SNAPSHOT_KEPT.includes(c));

/** A named snapshot that exists but cannot be loaded (damaged, or not a snapshot); `reason` says why. */
export class SnapshotUnreadableError extends Error {
  constructor(
    readonly snapshot: string,
    readonly reason: string,
  ) {
    super(`Snapshot \`${snapshot}\` cannot be loaded: ${reason}`);
    this.name = 'SnapshotUnreadableError';
  }
}

/** How a load is applied (StoreEngine.load); it resolves whether it wrote anything. */
export interface LoadOptions {
  /**
   * Only into an empty store (isEmptyStore: no users, workspaces or tokens): checked inside the
   * load's own transaction, so of loads racing on an empty store (servers starting together with
   * one seed) exactly one writes, and the others resolve false having written nothing.
   */
  ifEmpty?: boolean;
  /** Records written beside the load (put) without emptying their collections: a setting kept with a seed. */
  also?: Iterable<Loaded>;
  /**
   * The JSON engine: a big load (written as the snapshot) resolves once it is in memory, and this
   * is handed the promise of the snapshot on disk (writes wait for it; it rejects if it could not be
   * written, and writes are then refused). PostgreSQL never calls it: its load resolves once committed.
   */
  background?: (durable: Promise<void>) => void;
}

/** The collections whose records make a store not empty: a start seeds or bootstraps a store without any. */
export const NONEMPTY_COLLECTIONS = ['users', 'workspaces', 'tokens'] as const satisfies readonly CollectionName[];

/** Whether the store `tx` reads holds no users, workspaces or tokens (settings alone leave it empty). */
export async function isEmptyStore(tx: ReadTx): Promise<boolean> {
  for (const c of NONEMPTY_COLLECTIONS) if ((await tx.count(c)) > 0) return false;
  return true;
}

/** One record of a load, with its collection. */
export type Loaded = { [C in CollectionName]: readonly [C, RecordTypes[C]] }[CollectionName];

/**
 * Checks a load's records before an engine writes any: each in one of `collections`, no id or
 * unique key twice. Returns them by collection.
 */
export function checkLoad(
  collections: readonly CollectionName[],
  records: Iterable<Loaded>,
): Map<CollectionName, Array<{ id: string }>> {
  const out = new Map<CollectionName, Array<{ id: string }>>(collections.map((c) => [c, []]));
  const ids = new Map<CollectionName, Set<string>>(collections.map((c) => [c, new Set()]));
  const keys = new Map<string, Set<string>>();
  for (const [c, rec] of records) {
    const list = out.get(c);
    if (!list) throw new Error(`A load of ${collections.join(', ')} cannot write ${c}.`);
    const seen = ids.get(c)!;
    if (seen.has(rec.id)) throw new ConflictError(c, rec.id);
    seen.add(rec.id);
    for (const def of LOOKUPS_OF.get(c) ?? []) {
      const key = def.key(rec as never);
      if (key === null) continue;
      let taken = keys.get(def.name);
      if (!taken) keys.set(def.name, (taken = new Set()));
      if (taken.has(key)) throw new ConflictError(c, rec.id, def.name);
      taken.add(key);
    }
    list.push(rec);
  }
  return out;
}

/** The setting holding the emulator's clock offset in ms (`PUT /_emulator/clock`), added to the engine's clock. */
export const CLOCK_OFFSET_SETTING = 'emulator.clock_offset_ms';

/** The offset a clock setting's value holds (0 when it holds anything but a finite number). */
export const offsetOf = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/**
 * A write that would break a unique constraint: a create of an id that exists (`index` absent), or
 * a unique key (`index`, a LOOKUPS name) another record holds.
 */
export class ConflictError extends Error {
  readonly code = 'store_conflict';
  constructor(
    readonly collection: CollectionName,
    readonly id: string,
    readonly index?: LookupName,
  ) {
    super(
      index
        ? `${collection} \`${id}\`: its ${index} key is another record's already.`
        : `${collection} \`${id}\` exists already.`,
    );
    this.name = 'ConflictError';
  }
}

/**
 * The store cannot be reached or cannot take writes now (the database is down, restarting or refusing
 * connections; a data file that could not be written): the server answers 503 `store_unavailable`.
 */
export class StoreUnavailableError extends Error {
  /** The 503's Retry-After: unset where waiting does not help (a restart does). */
  retryAfter: string | undefined = '1';
  constructor(readonly reason: string) {
    super(`The database is unavailable (${reason}). Retry shortly.`);
  }
}
