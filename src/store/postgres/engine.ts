/*
 * The PostgreSQL engine: the store's interface (engine/interface.ts) over tables (schema.ts), with
 * nothing of record in the process. Every `read` and `write` is one database transaction:
 * - writes in READ COMMITTED; every record a write transaction reads (`get`, `find`) is read
 *   `FOR UPDATE`, so a read-then-write never loses a concurrent update; creates are guarded by the
 *   primary key and the unique indexes (a violation is a ConflictError);
 * - reads in REPEATABLE READ, READ ONLY: one consistent view, never a serialization failure;
 * - a transaction that fails with 40001 (serialization) or 40P01 (deadlock) runs again from the
 *   start after a short random backoff, which is why `fn` touches nothing outside `tx`;
 * - each sets, for itself alone (`set_config(…, true)`), lock_timeout, statement_timeout and
 *   idle_in_transaction_session_timeout: a paused process holds its rows for a bounded time;
 * - names are schema-qualified and nothing is set on the session, so it runs behind PgBouncer in
 *   transaction mode; prepared statements are used only where PostgreSQL is reached directly
 *   (directConnection), or where `?prepare=true` says so; `?prepare=false` turns them off;
 * - `tx.now()` is the database's clock (`clock_timestamp()`) plus the shared emulator offset.
 * No cache yet: every read goes to the database.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Sql, TransactionSql } from 'postgres';
import { INDEXES, LOOKUPS, LOOKUPS_OF, type IndexName, type LookupName } from '../indexes.js';
import { COLLECTIONS, type CollectionName, type RecordTypes } from '../records.js';
import { SortedIndex, type IndexDef, type SortKey } from '../sorted-index.js';
import { encodeKey } from './sort-keys.js';
import { isUnavailable } from './errors.js';
import {
  checkLoad,
  CLOCK_OFFSET_SETTING,
  ConflictError,
  isEmptyStore,
  NONEMPTY_COLLECTIONS,
  offsetOf,
  type Loaded,
  type LoadOptions,
  type Page,
  type PageQuery,
  type ReadTx,
  type SnapshotInfo,
  type Snapshots,
  type StoreEngine,
  type WriteTx,
  SNAPSHOT_REPLACED,
  SNAPSHOT_SAVED,
  StoreUnavailableError,
} from '../engine/interface.js';
import type { NamedSnapshotRecord } from '../records.js';
import {
  collectionTables,
  INDEXES_BY_COLLECTION,
  lookupColumn,
  migrate,
  Names,
  recordColumns,
  recordValues,
  SEARCH_COLUMN,
  STAGED,
  swapStatements,
  type Trigrams,
} from './schema.js';
import { isSearched, likePattern, matchesSearch, type SearchedCollection } from '../search.js';
import { loadPostgres } from './client.js';

export interface PostgresEngineOptions {
  /** Connections in the pool (default 8). */
  max?: number;
  /** Per transaction, in ms (defaults 5 s, 15 s and 10 s). */
  lockTimeoutMs?: number;
  statementTimeoutMs?: number;
  idleInTransactionMs?: number;
  /** Retries of a transaction that lost a conflict, at most (default 10). */
  retries?: number;
}

/**
 * The engine's own settings in the store URL, taken out before the driver sees it. `prepare` is
 * undefined when the URL does not say (then `open` decides by directConnection).
 */
export function parseStoreUrl(url: string): { base: string; schema: string; prepare: boolean | undefined } {
  const u = new URL(url);
  const schema = u.searchParams.get('schema') ?? 'public';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new Error(
      `The schema in the store URL must be 1 to 63 lower-case letters, digits or _; received \`${schema}\`.`,
    );
  const given = u.searchParams.get('prepare');
  if (given !== null && given !== 'true' && given !== 'false')
    throw new Error(`\`prepare\` in the store URL must be true or false; received \`${given}\`.`);
  u.searchParams.delete('schema');
  u.searchParams.delete('prepare');
  return { base: u.href, schema, prepare: given === null ? undefined : given === 'true' };
}

/**
 * Whether this process reaches PostgreSQL with nothing in between: one connection of our own,
 * whose address and port as the server sees them (`inet_client_addr()`, `inet_client_port()`)
 * are our socket's. Through PgBouncer or another proxy the server sees the pooler's connection
 * instead. Prepared statements are safe only on a direct connection: in transaction pooling a
 * client's next transaction may run on a server connection that never prepared its statements,
 * and postgres 3.4's retry of such a statement inside a transaction can acknowledge a commit
 * that PostgreSQL rolled back (measured behind PgBouncer 1.18: 6 of 9 acknowledged writes lost).
 * A Unix socket (no port) counts as direct.
 */
async function directConnection(postgres: (url: string, options: object) => Sql, base: string): Promise<boolean> {
  const { connect } = await import('node:net');
  let local: { address?: string; port?: number } | undefined;
  const probe = postgres(base, {
    max: 1,
    prepare: false,
    onnotice: () => undefined,
    connect_timeout: 10,
    socket: (o: { host: string[]; port: number[]; path?: string }) =>
      new Promise((resolve, reject) => {
        const sock = o.path ? connect(o.path) : connect(o.port[0], o.host[0]);
        sock.once('error', reject);
        sock.once('connect', () => {
          sock.off('error', reject);
          local = o.path ? undefined : { address: sock.localAddress, port: sock.localPort };
          resolve(sock);
        });
      }),
  } as never);
  try {
    const [seen] = await probe.unsafe(`select host(inet_client_addr()) as address, inet_client_port() as port`);
    if (!local) return true;
    const bare = (a: string | null | undefined) => (a ?? '').replace(/^::ffff:/, '');
    return seen.port === local.port && bare(seen.address) === bare(local.address);
  } finally {
    await probe.end({ timeout: 1 }).catch(() => undefined);
  }
}

const RETRIED = new Set(['40001', '40P01']);

/**
 * A prepared statement that went stale under a load's swap (the tables it named dropped and
 * renamed): PostgreSQL plans it again by name, but should it refuse it ("cached plan must not
 * change result type", or a relation's OID gone), the transaction runs once more.
 */
function replanned(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    (e.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '')) ||
    (e.code === 'XX000' && /could not open relation with OID|cache lookup failed for relation/.test(e.message ?? ''))
  );
}

export class PostgresEngine implements StoreEngine {
  readonly kind = 'postgres' as const;
  /** How many times a transaction ran again after a conflict (tests and the benchmark read it). */
  retried = 0;
  private readonly settings: string;
  /** lock_timeout as set_config takes it (a quoted interval). */
  private readonly lockTimeout: string;

  private constructor(
    private readonly sql: Sql,
    readonly names: Names,
    /** Whether statements are prepared (named, planned once per connection). */
    readonly prepare: boolean,
    /** Whether `prepare` was decided by directConnection (the URL did not say). */
    readonly prepareDetected: boolean,
    private readonly options: PostgresEngineOptions,
    /** Where pg_trgm is (a load's fresh tables get their search index with it), or null. */
    private readonly trgm: Trigrams,
  ) {
    const ms = (v: number | undefined, d: number) => `'${Math.max(0, Math.round(v ?? d))}ms'`;
    this.lockTimeout = ms(options.lockTimeoutMs, 5000);
    this.settings =
      `select set_config('lock_timeout', ${this.lockTimeout}, true),` +
      ` set_config('statement_timeout', ${ms(options.statementTimeoutMs, 15000)}, true),` +
      ` set_config('idle_in_transaction_session_timeout', ${ms(options.idleInTransactionMs, 10000)}, true)`;
  }

  /**
   * Connects (the driver is loaded only now) and brings the schema up to date. Without
   * `?prepare=` in the URL, prepared statements are on only when PostgreSQL is reached directly.
   */
  static async open(url: string, options: PostgresEngineOptions = {}): Promise<PostgresEngine> {
    const postgres = await loadPostgres();
    const parsed = parseStoreUrl(url);
    const { base, schema } = parsed;
    let prepare = parsed.prepare;
    if (prepare === undefined) {
      try {
        prepare = await directConnection(postgres, base);
      } catch (err) {
        throw unavailable(err);
      }
    }
    const sql = postgres(base, {
      max: options.max ?? 8,
      prepare,
      onnotice: () => undefined,
      connect_timeout: 10,
      idle_timeout: 30,
    });
    const names = new Names(schema);
    let trgm: Trigrams;
    try {
      trgm = await migrate(sql, names, prepare);
    } catch (err) {
      await sql.end({ timeout: 1 }).catch(() => undefined);
      throw unavailable(err);
    }
    return new PostgresEngine(sql, names, prepare, parsed.prepare === undefined, options, trgm);
  }

  read<T>(fn: (tx: ReadTx) => Promise<T>): Promise<T> {
    return this.run('isolation level repeatable read read only', (q) => fn(this.tx(q, false)));
  }

  write<T>(fn: (tx: WriteTx) => Promise<T>): Promise<T> {
    return this.run('isolation level read committed', (q) => fn(this.tx(q, true)));
  }

  async load(
    collections: readonly CollectionName[],
    records: Iterable<Loaded>,
    options: LoadOptions = {},
  ): Promise<boolean> {
    const byCollection = checkLoad(collections, records);
    const also = [...(options.also ?? [])];
    const names = this.names;
    return this.run('isolation level read committed', async (q) => {
      // A load takes longer than a request: its statements get minutes, not seconds.
      await q.run(`select set_config('statement_timeout', '600s', true)`);
      if (options.ifEmpty) {
        // Loads into an empty store take turns on the emptiness check's tables (SHARE ROW EXCLUSIVE
        // conflicts with itself and with writes, not with reads; held until commit); each counts
        // after the one before committed (read committed: each statement sees the commits before
        // it), so of two servers seeding one empty schema, the second finds it seeded. Writes to
        // users, workspaces and tokens wait meanwhile: only while a seed goes into an empty store.
        await q.run(`select set_config('lock_timeout', '600s', true)`);
        await q.run(
          `lock table ${NONEMPTY_TABLES.map((c) => names.records(c)).join(', ')} in share row exclusive mode`,
        );
        await q.run(`select set_config('lock_timeout', ${this.lockTimeout}, true)`);
        if (!(await isEmptyStore(this.tx(q, false)))) return false;
      }
      // Fresh tables beside the live ones, filled while other processes go on reading and writing
      // the live tables (no lock on them), then swapped in at the end (swap). A write another
      // process commits to a live table meanwhile is replaced by the load: that is what replace means.
      for (const c of collections)
        for (const stmt of collectionTables(names, c, STAGED, this.trgm).tables) await q.run(stmt);
      for (const [c, list] of byCollection) {
        if (!list.length) continue;
        await copyIn(
          q.t,
          `copy ${names.records(c, STAGED)} (${recordColumns(c).join(', ')}) from stdin with (freeze)`,
          list.map((rec) => recordValues(c, rec)),
        );
        const defs = INDEXES_BY_COLLECTION.get(c);
        if (!defs) continue;
        const rows: Array<Array<string | null>> = [];
        for (const rec of list)
          for (const def of defs) {
            const key = encodeKey(def.key(rec as never)).toString('hex');
            for (const p of partitionsOf(def, rec)) rows.push([def.name, p, key, rec.id]);
          }
        await copyIn(q.t, `copy ${names.entries(c, STAGED)} (ix, part, key, id) from stdin with (freeze)`, rows);
      }
      await this.swap(q, collections);
      // After the swap: a record `also` puts into a replaced collection goes into its new table.
      const tx = this.tx(q, true);
      for (const [c, rec] of also) await tx.put(c, rec as never);
      return true;
    });
  }

  /**
   * Puts the fresh tables of `collections` (collectionTables with STAGED, filled) in place of the
   * live ones: their indexes made, then the live tables' ACCESS EXCLUSIVE lock taken (one
   * statement, in COLLECTIONS order) and the tables swapped by drop and rename (one round trip); the caller commits.
   * The lock is waited for a short while at a time (SWAP_WAIT_MS) and given back between tries
   * (a savepoint rolled back), so the writes and reads queued behind it wait no longer than that plus the swap.
   * The fresh rows are written frozen (COPY … FREEZE), so a reader whose snapshot began before the
   * commit, and reaches a swapped table only after it, sees the new rows, not an empty table: every
   * reader sees the old state of the replaced collections or the new one, never a mix.
   */
  private async swap(q: Query, collections: readonly CollectionName[]): Promise<void> {
    const names = this.names;
    for (const c of collections)
      for (const stmt of collectionTables(names, c, STAGED, this.trgm).indexes) await q.run(stmt);
    // Statistics now, not at autovacuum's next round: until then the planner guesses a search's
    // selectivity, and may walk a million rows in key order where the trigram index finds none.
    const fresh = collections.flatMap((c) =>
      INDEXES_BY_COLLECTION.has(c) ? [names.records(c, STAGED), names.entries(c, STAGED)] : [names.records(c, STAGED)],
    );
    await q.run(`analyze ${fresh.join(', ')}`);
    const tables = COLLECTIONS.filter((c) => collections.includes(c)).flatMap((c) =>
      INDEXES_BY_COLLECTION.has(c) ? [names.records(c), names.entries(c)] : [names.records(c)],
    );
    const deadline = Date.now() + SWAP_PATIENCE_MS;
    await q.run(`select set_config('lock_timeout', '${SWAP_WAIT_MS}ms', true)`);
    for (let attempt = 0; ; attempt++) {
      try {
        // One try in COLLECTIONS order, the next in the reverse: a transaction holding one of the
        // tables and waiting for another we hold already would have us time out every try in one
        // order, not in both.
        const order = attempt % 2 ? [...tables].reverse() : tables;
        // In a savepoint of the driver's (its own scope: a statement failing in it rolls back to it
        // and leaves the transaction going; one failing at the transaction's level would end it).
        await q.t.savepoint((s) => s.unsafe(`lock table ${order.join(', ')} in access exclusive mode`));
        break;
      } catch (err) {
        const code = (err as { code?: string }).code;
        if ((code !== '55P03' && code !== '40P01') || Date.now() > deadline) throw err;
        // Past the deadline's last try, wait as long as any transaction would.
        if (Date.now() + SWAP_WAIT_MS > deadline)
          await q.run(`select set_config('lock_timeout', ${this.lockTimeout}, true)`);
        await new Promise((r) => setTimeout(r, 10 + Math.random() * Math.min(200, 10 * 2 ** attempt)));
      }
    }
    // The drops and renames (about four a collection) while the lock is held: sent as one simple
    // query (no parameters: one round trip, one batch through PgBouncer too), so the writers queued
    // behind the lock wait for the catalog's work, not for a round trip per statement.
    await q.run(
      [
        `select set_config('lock_timeout', ${this.lockTimeout}, true)`,
        ...collections.flatMap((c) => swapStatements(names, c, STAGED, this.trgm)),
      ].join(';\n'),
    );
  }

  /**
   * Every record of `c`, in the order the JSON engine lists them (an export): by the key of the
   * collection's first index, else as they were written. One consistent read; not for requests.
   */
  async scan<C extends CollectionName>(c: C): Promise<Array<RecordTypes[C]>> {
    const first = INDEXES_BY_COLLECTION.get(c)?.[0];
    const rows = await this.run('isolation level repeatable read read only', (q) =>
      q.run(`select doc::text as doc from ${this.names.records(c)} order by ctid`),
    );
    const recs = rows.map((r) => parse(r.doc) as RecordTypes[C]);
    // Sorted as the JSON engine's first index sorts (stable: ties stay in the order written).
    return first ? (new SortedIndex(first).order(recs) as Array<RecordTypes[C]>) : recs;
  }

  private async run<T>(mode: string, fn: (q: Query) => Promise<T>): Promise<T> {
    const max = this.options.retries ?? 10;
    let stale = 0;
    for (let attempt = 0; ; attempt++) {
      let failed: ConflictError | null = null;
      try {
        const boxed = (await this.sql.begin(mode, async (t) => {
          const q: Query = {
            run: async (text, params = [], planEach = false) => {
              if (failed) throw failed;
              try {
                return await t.unsafe(text, params as never[], { prepare: this.prepare && !planEach });
              } catch (err) {
                const conflict = asConflict(err, q.current);
                if (conflict) throw (failed = conflict);
                throw err;
              }
            },
            current: null,
            t,
          };
          await q.run(this.settings);
          const out = await fn(q);
          if (failed) throw failed;
          // An array is awaited element by element by the driver: hand it over boxed.
          return [out];
        })) as unknown as [T];
        return boxed[0];
      } catch (err) {
        if (attempt < max && (RETRIED.has((err as { code?: string }).code ?? '') || (replanned(err) && !stale++))) {
          this.retried++;
          await new Promise((r) => setTimeout(r, Math.random() * Math.min(200, 5 * 2 ** attempt)));
          continue;
        }
        throw unavailable(err);
      }
    }
  }

  private tx(q: Query, writing: boolean): WriteTx {
    const names = this.names;
    const lock = writing ? ' for update' : '';
    const one = async <C extends CollectionName>(rows: Row[]): Promise<RecordTypes[C] | undefined> =>
      rows.length ? (parse(rows[0].doc) as RecordTypes[C]) : undefined;
    const readOnly = () => {
      if (!writing) throw new Error('A read transaction cannot write: use store.write.');
    };
    const write = async <C extends CollectionName>(c: C, rec: RecordTypes[C], create: boolean) => {
      readOnly();
      const cols = recordColumns(c);
      const values = recordValues(c, rec);
      const marks = values.map((_, i) => (i === 1 ? `$2::text::json` : `$${i + 1}::text`));
      const update = cols.slice(1).map((col) => `${col} = excluded.${col}`);
      q.current = { c, id: rec.id };
      await q.run(
        `insert into ${names.records(c)} (${cols.join(', ')}) values (${marks.join(', ')})` +
          (create ? '' : ` on conflict (id) do update set ${update.join(', ')}`),
        values,
      );
      q.current = null;
      const defs = INDEXES_BY_COLLECTION.get(c);
      if (defs) {
        const ix: string[] = [];
        const parts: string[] = [];
        const keys: string[] = [];
        for (const def of defs) {
          const key = encodeKey(def.key(rec as never)).toString('hex');
          for (const p of partitionsOf(def, rec)) {
            ix.push(def.name);
            parts.push(p);
            keys.push(key);
          }
        }
        if (!create) await q.run(`delete from ${names.entries(c)} where id = $1`, [rec.id]);
        if (ix.length)
          await q.run(
            `insert into ${names.entries(c)} (ix, part, key, id) select ix, part, key, $4 from unnest($1::text[], $2::text[], $3::text[]) as u(ix, part, key)`,
            [ix, parts, keys, rec.id],
          );
      }
      Object.freeze(rec);
      return rec;
    };
    return {
      get: async (c, id) =>
        one(await q.run(`select doc::text as doc from ${names.records(c)} where id = $1${lock}`, [id])),
      find: async (c, index, key) => {
        if (LOOKUPS[index as LookupName].collection !== c) throw new Error(`index ${index} is not over ${c}`);
        return one(
          await q.run(`select doc::text as doc from ${names.records(c)} where ${lookupColumn(index)} = $1${lock}`, [
            key,
          ]),
        );
      },
      page: async (c, index, query) =>
        page(q, names, c, index, query as PageQuery<{ id: string }>) as Promise<Page<RecordTypes[typeof c]>>,
      count: async (c, index, partition) => {
        const rows = index
          ? await q.run(`select count(*)::int as n from ${names.entries(c)} where ix = $1 and part = $2`, [
              index,
              partition ?? '',
            ])
          : await q.run(`select count(*)::int as n from ${names.records(c)}`);
        return Number(rows[0].n);
      },
      now: async () => {
        const rows = await q.run(
          `select (extract(epoch from clock_timestamp()) * 1000)::float8 as ms, (select doc::text from ${names.records('settings')} where id = $1) as off`,
          [CLOCK_OFFSET_SETTING],
        );
        const off = rows[0].off === null ? 0 : offsetOf((parse(rows[0].off) as { value?: unknown }).value);
        return Math.floor(Number(rows[0].ms)) + off;
      },
      put: (c, rec) => write(c, rec, false),
      create: (c, rec) => write(c, rec, true),
      delete: async (c, id) => {
        readOnly();
        await q.run(`delete from ${names.records(c)} where id = $1`, [id]);
        if (INDEXES_BY_COLLECTION.has(c)) await q.run(`delete from ${names.entries(c)} where id = $1`, [id]);
      },
    };
  }

  /**
   * Named snapshots as copies of the tables in the database (schema.ts, snapshotTables), listed in
   * the collection `named_snapshots`: every process on the database sees the same ones.
   */
  readonly snapshots: Snapshots = {
    save: (name) => this.saveSnapshot(name),
    restore: (name) => this.restoreSnapshot(name),
    list: () => this.listSnapshots(),
    delete: (name) => this.deleteSnapshot(name),
    reset: async (records) => void (await this.load(SNAPSHOT_REPLACED, records)),
  };

  /**
   * One transaction in REPEATABLE READ, so every table is copied as of one moment. Its record is
   * written first: a save of the same name running beside it waits for it, then runs again.
   */
  private saveSnapshot(name: string): Promise<SnapshotInfo> {
    const names = this.names;
    return this.run('isolation level repeatable read', async (q) => {
      await q.run(`select set_config('statement_timeout', '600s', true)`);
      const tx = this.tx(q, true);
      const rec: NamedSnapshotRecord = {
        id: name,
        created_at: new Date(await tx.now()).toISOString(),
        records: 0,
        bytes: 0,
      };
      await tx.put('named_snapshots', rec);
      let records = 0;
      let bytes = 0;
      for (const c of SNAPSHOT_SAVED) {
        const cols = recordColumns(c).join(', ');
        await q.run(`delete from ${names.savedRecords(c)} where snap = $1`, [name]);
        const rows = await q.run(
          `with saved as (insert into ${names.savedRecords(c)} (snap, ${cols}) select $1::text, ${cols} from ${names.records(c)} returning octet_length(doc::text) as n)` +
            ` select count(*)::int as records, coalesce(sum(n), 0)::float8 as bytes from saved`,
          [name],
        );
        records += Number(rows[0].records);
        bytes += Number(rows[0].bytes);
        if (!INDEXES_BY_COLLECTION.has(c)) continue;
        await q.run(`delete from ${names.savedEntries(c)} where snap = $1`, [name]);
        await q.run(
          `insert into ${names.savedEntries(c)} (snap, ix, part, key, id) select $1::text, ix, part, key, id from ${names.entries(c)}`,
          [name],
        );
      }
      const saved = await tx.put('named_snapshots', { ...rec, records, bytes });
      return { name, bytes, saved_at: saved.created_at };
    });
  }

  /**
   * One transaction: the snapshot's record locked (a save or delete of it waits), fresh tables made
   * for the replaced collections and filled from the copy (read out and written back with COPY
   * FREEZE, as a load writes them), then swapped in as a load swaps (swap): readers and writers go on with the
   * live tables meanwhile, and see the old state until it commits, the restored one after.
   */
  private restoreSnapshot(name: string): Promise<boolean> {
    const names = this.names;
    return this.run('isolation level read committed', async (q) => {
      await q.run(`select set_config('statement_timeout', '600s', true)`);
      if (!(await this.tx(q, true).get('named_snapshots', name))) return false;
      for (const c of SNAPSHOT_REPLACED)
        for (const stmt of collectionTables(names, c, STAGED, this.trgm).tables) await q.run(stmt);
      for (const c of SNAPSHOT_REPLACED) {
        if (!SNAPSHOT_SAVED.has(c)) continue;
        const cols = recordColumns(c);
        const text = cols.map((col) => (col === 'doc' ? 'doc::text as doc' : col)).join(', ');
        const recs = await q.run(`select ${text} from ${names.savedRecords(c)} where snap = $1`, [name]);
        await copyIn(
          q.t,
          `copy ${names.records(c, STAGED)} (${cols.join(', ')}) from stdin with (freeze)`,
          recs.map((r) => Object.values(r) as Array<string | null>),
        );
        if (!INDEXES_BY_COLLECTION.has(c)) continue;
        const entries = await q.run(`select ix, part, key, id from ${names.savedEntries(c)} where snap = $1`, [name]);
        await copyIn(
          q.t,
          `copy ${names.entries(c, STAGED)} (ix, part, key, id) from stdin with (freeze)`,
          entries.map((r) => [r.ix, r.part, r.key, r.id] as Array<string | null>),
        );
      }
      await this.swap(q, SNAPSHOT_REPLACED);
      return true;
    });
  }

  private listSnapshots(): Promise<SnapshotInfo[]> {
    return this.run('isolation level repeatable read read only', async (q) => {
      const rows = await q.run(
        `select doc::text as doc from ${this.names.records('named_snapshots')} order by id collate "C"`,
      );
      return rows.map((row) => {
        const rec = parse(row.doc) as NamedSnapshotRecord;
        return { name: rec.id, bytes: rec.bytes ?? 0, saved_at: rec.created_at };
      });
    });
  }

  private deleteSnapshot(name: string): Promise<boolean> {
    const names = this.names;
    return this.run('isolation level read committed', async (q) => {
      const tx = this.tx(q, true);
      if (!(await tx.get('named_snapshots', name))) return false;
      for (const c of SNAPSHOT_SAVED) {
        await q.run(`delete from ${names.savedRecords(c)} where snap = $1`, [name]);
        if (INDEXES_BY_COLLECTION.has(c)) await q.run(`delete from ${names.savedEntries(c)} where snap = $1`, [name]);
      }
      await tx.delete('named_snapshots', name);
      return true;
    });
  }

  close(): Promise<void> {
    return this.sql.end({ timeout: 5 });
  }
}

/** How long the swap waits for the live tables' lock at a time, and for how long it tries again. */
const SWAP_WAIT_MS = 100;
const SWAP_PATIENCE_MS = 30_000;

/** The emptiness check's tables, in COLLECTIONS order (so two loads lock them in one order). */
const NONEMPTY_TABLES = COLLECTIONS.filter((c) => (NONEMPTY_COLLECTIONS as readonly string[]).includes(c));

/** A connection failure as StoreUnavailableError (the server answers 503 with Retry-After); anything else as it is. */
function unavailable(err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isUnavailable(err)) return err;
  return new StoreUnavailableError((err as { code: string }).code);
}

/** A COPY field in text format: backslash, tab, newline and carriage return escaped; null as \N. */
const copyField = (v: string | null): string =>
  v === null ? '\\N' : v.replace(/[\\\t\n\r]/g, (ch) => COPY_ESCAPES[ch]);
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * Streams `rows` into `copy … from stdin`, a thousand lines a chunk. The driver (postgres 3.4)
 * never settles a COPY the server refused (porsager/postgres#1173): the transaction would wait
 * until idle_in_transaction_session_timeout ends its session. So nothing the server could refuse
 * is sent: load checks ids and unique keys first (checkLoad), fields are escaped, the documents
 * come from JSON.stringify, and a NUL (which text cannot hold) is refused here. The fresh tables a
 * load copies into get their unique lookup indexes only after the COPY (swap), so a taken key
 * would fail that statement, not the COPY.
 */
async function copyIn(t: TransactionSql, statement: string, rows: Array<Array<string | null>>): Promise<void> {
  for (const row of rows)
    for (const v of row)
      if (v !== null && v.includes('\u0000'))
        throw new Error(`A load cannot write a NUL character to PostgreSQL (in \`${row[0]}\`).`);
  const query = t.unsafe(statement);
  const sink = await query.writable();
  function* chunks() {
    for (let i = 0; i < rows.length; i += 1000) {
      let out = '';
      for (const row of rows.slice(i, i + 1000)) out += row.map(copyField).join('\t') + '\n';
      yield out;
    }
  }
  // The statement's own promise carries the server's error (a row it refuses): wait for both.
  await Promise.all([pipeline(Readable.from(chunks()), sink), query]);
}

interface Row {
  [column: string]: unknown;
}
/** One transaction's statements; `current` names the record a write is for (its conflict's subject). */
interface Query {
  /** `planEach`: an unnamed statement, planned for its parameters every time (never a generic plan). */
  run(text: string, params?: unknown[], planEach?: boolean): Promise<Row[]>;
  current: { c: CollectionName; id: string } | null;
  t: TransactionSql;
}

const parse = (text: unknown): unknown => Object.freeze(JSON.parse(text as string));

function partitionsOf(def: IndexDef, rec: unknown): readonly string[] {
  return def.partitions ? def.partitions(rec as never) : [def.partition(rec as never)];
}

/** A unique violation as the interface's ConflictError (the index from the constraint's name). */
function asConflict(err: unknown, current: Query['current']): ConflictError | null {
  const e = err as { code?: string; constraint_name?: string };
  if (e.code !== '23505' || !current) return null;
  const lookup = (LOOKUPS_OF.get(current.c) ?? []).find((l) => e.constraint_name === `wcm_c_${current.c}_${l.name}`);
  return new ConflictError(current.c, current.id, lookup?.name);
}

/**
 * One keyset page: entries of the partition past `after` in the index's order, joined to their
 * records, read in batches while a filter turns some away. A search is narrowed in SQL (a LIKE
 * over the records' search text, which the trigram index answers when there is one), then tested
 * on the rows found by the rule itself (search.ts), so only matching rows come back.
 */
async function page(
  q: Query,
  names: Names,
  c: CollectionName,
  index: IndexName,
  query: PageQuery<{ id: string }>,
): Promise<Page<unknown>> {
  const def = INDEXES[index] as IndexDef;
  if (def.collection !== c) throw new Error(`index ${index} is not over ${c}`);
  const desc = def.order === 'desc';
  const hex = (k: SortKey) => encodeKey(k).toString('hex');
  const where = ['e.ix = $1', 'e.part = $2'];
  const params: unknown[] = [index, query.partition];
  const add = (cond: string, v: unknown) => {
    params.push(v);
    where.push(cond.replace('?', `$${params.length}`));
  };
  if (query.from) add(desc ? 'e.key <= ?' : 'e.key >= ?', hex(query.from));
  if (query.to) add(desc ? 'e.key > ?' : 'e.key < ?', hex(query.to));
  let test = query.filter;
  let narrowed = true;
  let likeInSql = false;
  if (query.search) {
    if (!isSearched(c)) throw new Error(`${c} has no searched fields`);
    const needle = query.search;
    const pattern = likePattern(needle);
    if (pattern === null) narrowed = false;
    else {
      add(`t.${SEARCH_COLUMN} like ?`, pattern);
      likeInSql = true;
    }
    const filter = query.filter;
    const matches = matchesSearch(c, needle);
    const searched = (rec: { id: string }) => matches(rec as RecordTypes[SearchedCollection]);
    test = filter ? (rec) => filter(rec) && searched(rec) : searched;
  }
  const want = query.limit + 1;
  // Rows SQL has narrowed to a search's matches are nearly all kept: no bigger batch for them.
  const batch = query.filter || !narrowed ? Math.max(want, 64) : want;
  const items: unknown[] = [];
  let after = query.after ? hex(query.after) : null;
  params.push(null);
  const afterAt = params.length;
  for (;;) {
    params[afterAt - 1] = after;
    const rows = await q.run(
      `select e.key, t.doc::text as doc from ${names.entries(c)} e join ${names.records(c)} t on t.id = e.id` +
        ` where ${where.join(' and ')} and ($${afterAt}::text is null or e.key ${desc ? '<' : '>'} $${afterAt}::text)` +
        ` order by e.key ${desc ? 'desc' : 'asc'} limit ${batch}`,
      params,
      // Whether the trigram index or the walk along the keys is faster depends on the needle (few
      // matches or many): each search is planned for its own needle, never by a cached plan.
      likeInSql,
    );
    for (const row of rows) {
      const rec = parse(row.doc) as { id: string };
      if (!test || test(rec)) items.push(rec);
      if (items.length === want) break;
    }
    if (items.length === want || rows.length < batch) break;
    after = rows[rows.length - 1].key as string;
  }
  const more = items.length > query.limit;
  if (more) items.length = query.limit;
  const lastRec = items[items.length - 1];
  return { items, last: lastRec ? def.key(lastRec as never) : null, more };
}
