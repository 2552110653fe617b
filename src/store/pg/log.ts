import type { Sql } from 'postgres';
import type { Tx } from '../records.js';
import type { TxReads } from '../record-repository.js';
import type { Op } from '../state.js';
import { isDeadlock, unavailable } from './errors.js';
import { readBase, writeBase } from './base.js';
import { inTransaction } from './reserved.js';
import { type BatchOutcome, type BulkSteps, lockWrites, type Pending, writeBatchTx } from './batch.js';
import type { JournalRow, SharedHost } from './shared-host.js';
import { applyTableWrites } from './table-writes.js';

export type { BulkSteps } from './batch.js';
import { isClaimRefused, writeOneTrip } from './one-trip.js';

/** Journal rows kept behind the base after a compaction, so a process a little behind catches up without a reload. */
const KEEP_BEHIND = 2000;
/** Compact (write a new base) once this many journal rows are past it. */
const COMPACT_ROWS = 20_000;
/** Runs of a batch that PostgreSQL aborted to break a deadlock (the last one's error is the batch's). */
const DEADLOCK_ATTEMPTS = 3;

/**
 * The store's records kept in PostgreSQL, shared by every process on the database. Each process
 * holds the state in memory (a cache, correct to lose) and brings it up to date from the journal
 * table before each request (`sync`). A write takes one transaction-scoped advisory lock, catches
 * up, runs on the state, appends its row and commits: writers in every process are serialized, so
 * no update is lost, and a write is acknowledged only once PostgreSQL has committed it. A bulk load
 * (seed, import, reset) writes a new base (the snapshot's bytes in rows) and empties the journal;
 * the other processes see the base move past them and reload.
 */
export class PgLog {
  private queue: Pending[] = [];
  private writing: Promise<void> | null = null;
  private syncing: Promise<void> | null = null;
  /** The batch being written: whether it committed (sync). */
  private committing: Promise<boolean> | null = null;
  private rowsSinceBase = 0;
  private closed = false;
  /** The last catch-up found another process's writes: the next batch takes the usual path. */
  private othersWrote = false;

  constructor(
    readonly sql: Sql,
    private readonly host: SharedHost,
    /** The connection of the one-statement batches (open.ts). */
    readonly writer: Sql = sql,
  ) {}

  /** Loads the base and the journal; at start-up, moves records an older base held into their tables. */
  async open(): Promise<void> {
    await this.load();
    const held = this.host.takeHeld();
    if (!held) return;
    await this.bulk((tx) => {
      for (const [c, m] of held.writes) for (const rec of m.values()) if (rec) tx.put(c, rec as never);
    });
  }

  /** Loads the base and the journal. */
  async load(): Promise<void> {
    await unavailable(async () => {
      const { seq, bytes } = await readBase(this.sql);
      const rows = await this.sql<
        JournalRow[]
      >`select seq::float8 as seq, ops from wcm_journal where seq > ${seq} order by seq`;
      // Two loads racing (a request's sync and a write's catch-up): the older answer must not win.
      if ((rows.at(-1)?.seq ?? seq) < this.host.seq) return;
      this.host.reload(bytes, seq, rows);
      this.rowsSinceBase = rows.length;
    });
  }

  /**
   * Brings the state up to what every process has committed. Concurrent calls share one query.
   * While a batch of ours holds the write lock, none is needed: it holds it from before its
   * catch-up until its commit, and every process writes under that lock, so once it commits this
   * process holds every write committed until then. Waiting for it spares a query
   * (and a wake-up of PostgreSQL) per request under a load of writes; if it fails, we ask.
   */
  sync(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('The store is closed.'));
    if (this.committing) return this.committing.then((ok) => (ok ? undefined : this.query()));
    return this.query();
  }

  private query(): Promise<void> {
    return (this.syncing ??= unavailable(() => this.catchUp(this.sql)).finally(() => (this.syncing = null)));
  }

  /**
   * Reads the journal past our seq (and the base's seq) and applies what we do not hold yet, or
   * reloads when the base moved past us (a bulk load or compaction by another process). A query
   * answered from before a write of ours only holds rows we have already: they are skipped.
   */
  private async catchUp(sql: Sql): Promise<void> {
    const rows = await sql<Array<{ base: number; seq: number | null; ops: string | null }>>`
      select b.seq::float8 as base, j.seq::float8 as seq, j.ops
      from (select coalesce((select seq from wcm_base where chunk = 0), 0) as seq) b
      left join wcm_journal j on j.seq > ${Math.max(this.host.seq, 0)}
      order by j.seq`;
    const base = rows[0]?.base ?? 0;
    const journal = rows.filter((r) => r.seq !== null && r.seq > this.host.seq) as JournalRow[];
    this.othersWrote = journal.length > 0 || base > this.host.seq;
    if (base > this.host.seq && journal[0]?.seq !== this.host.seq + 1) return this.load();
    for (const r of journal) {
      if (r.seq !== this.host.seq + 1) return this.load();
      this.host.applyRemote(JSON.parse(r.ops) as Op[]);
      this.host.seq = r.seq;
    }
  }

  /**
   * `reads`: what `fn` reads of the collections kept in tables, fetched under the lock so that its
   * `tx.get` finds them; reading one it did not name throws (table-writes.ts).
   */
  transact<T>(fn: (tx: Tx) => T, reads?: TxReads): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The store is closed.'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, reads });
      this.writing ??= this.writeLoop();
    });
  }

  /** Writes what is queued, a batch per PostgreSQL transaction, until the queue is empty. */
  private async writeLoop(): Promise<void> {
    try {
      for (;;) {
        // A turn of the event loop first: the requests the last commit released (their syncs
        // waited for it) queue their writes in that turn, and share this batch.
        await new Promise((turn) => setImmediate(turn));
        if (!this.queue.length) break;
        if (this.queue[0].bulk) {
          await this.writeBulk(this.queue.shift()!);
          continue;
        }
        // Transactions up to the next bulk load go in one PostgreSQL transaction.
        const next = this.queue.findIndex((p) => p.bulk);
        const batch = next < 0 ? this.queue.splice(0) : this.queue.splice(0, next);
        if (await this.writeOneTrip(batch)) continue;
        // Requests wait for the batch from when it holds the lock (sync), not before: the lock may
        // be held a while by another process (an import), and they should not wait for that.
        const held = { committed: Promise.resolve(false) };
        held.committed = this.writeBatch(batch, () => {
          this.committing = held.committed;
        }).catch(() => false);
        await held.committed;
        this.committing = null;
      }
      if (this.rowsSinceBase >= COMPACT_ROWS) await this.compact().catch(() => undefined);
    } finally {
      this.writing = null;
    }
  }

  /** Writes `batch`; `locked` is called once it holds the write lock. Resolves to whether it committed. */
  private async writeBatch(batch: Pending[], locked: () => void, attempt = 1): Promise<boolean> {
    const out: BatchOutcome<Pending> = { done: [], failed: [] };
    try {
      await unavailable(() =>
        writeBatchTx(this.sql, this.host, batch, { catchUp: (sql) => this.catchUp(sql), locked }, out),
      );
    } catch (err) {
      // Nothing of this batch was committed: undo it in reverse.
      for (let i = out.done.length - 1; i >= 0; i--) this.host.rollback(out.done[i].undo);
      // The commit may have landed before the connection broke: read the state again on the next sync.
      this.host.seq = -1;
      // Chosen to break a deadlock with an import that moved a thread this batch writes (seed.ts
      // importShared): that import ends now, so the batch runs again rather than failing.
      if (isDeadlock(err) && attempt < DEADLOCK_ATTEMPTS) return this.writeBatch(batch, locked, attempt + 1);
      for (const { p } of out.done) p.reject(err);
      for (const { p, err: own } of out.failed) p.reject(own);
      return false;
    }
    this.settle(out);
    return true;
  }

  private settle(out: BatchOutcome<Pending>): void {
    this.rowsSinceBase += out.done.length;
    for (const { p, result } of out.done) p.resolve(result);
    for (const { p, err } of out.failed) p.reject(err);
  }

  /** `batch` in one round trip (one-trip.ts) unless another process wrote lately; false: not written, take the usual path. */
  private async writeOneTrip(batch: Pending[]): Promise<boolean> {
    if (this.othersWrote || this.host.seq < 0) return false;
    const out: BatchOutcome<Pending> = { done: [], failed: [] };
    const base = this.host.seq;
    // The state holds the batch from now until it commits or is undone: syncs wait for it.
    const sent = unavailable(() => writeOneTrip(this.writer, this.host, batch, out));
    this.committing = sent.catch(() => false);
    try {
      if (!(await sent)) return false;
    } catch (err) {
      for (let i = out.done.length - 1; i >= 0; i--) this.host.rollback(out.done[i].undo);
      // Refused, or failed in PostgreSQL: nothing was committed; the usual path runs the batch again.
      if ((err as Error).name === 'PostgresError') {
        this.host.seq = base;
        this.othersWrote = isClaimRefused(err);
        return false;
      }
      this.host.seq = -1;
      for (const { p } of out.done) p.reject(err);
      for (const { p, err: own } of out.failed) p.reject(own);
      return true;
    } finally {
      this.committing = null;
    }
    this.settle(out);
    return true;
  }

  /** A bulk load: the new state becomes the base; every process reloads it on its next request. */
  bulk<T>(fn: (tx: Tx) => T, then?: (sql: Sql) => Promise<unknown>): Promise<T> {
    return this.bulkFrom(() => Promise.resolve(fn), { then });
  }

  /**
   * A bulk load whose function `make` returns inside the load's transaction, holding the write
   * lock, on the reserved connection `on` if given: an import's temporary table is there, and
   * `before` moves its threads into their table before the lock is taken (seed.ts importShared).
   * If any step throws, nothing is committed.
   */
  bulkFrom<T>(make: (sql: Sql) => Promise<(tx: Tx) => T>, steps: BulkSteps = {}): Promise<T> {
    if (this.closed) return Promise.reject(new Error('The store is closed.'));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ resolve: resolve as (v: unknown) => void, reject, bulk: make, ...steps });
      this.writing ??= this.writeLoop();
    });
  }

  private async writeBulk(p: Pending, attempt = 1): Promise<void> {
    let result: unknown;
    const begin = (fn: (sql: Sql) => Promise<void>) =>
      p.on ? inTransaction(p.on, fn) : this.sql.begin((t) => fn(t as unknown as Sql));
    try {
      await unavailable(() =>
        begin(async (sql) => {
          await p.before?.(sql);
          await lockWrites(sql as unknown as Sql);
          await this.catchUp(sql);
          const run = this.host.runBulk(await p.bulk!(sql));
          result = run.result;
          await applyTableWrites(sql, run.table);
          await p.then?.(sql);
          const seq = this.host.seq + 1;
          await writeBase(sql, seq, this.host.snapshot(seq));
          await sql`delete from wcm_journal`;
          this.host.seq = seq;
        }),
      );
      this.rowsSinceBase = 0;
      p.resolve(result);
    } catch (err) {
      // The state holds the load that failed: read back what the database has.
      this.host.seq = -1;
      await this.load().catch(() => undefined);
      // Aborted to break a deadlock with an import (as writeBatch): a load of this process's own
      // runs again; an import's (`on`) has no second run, its caller says so (seed.ts).
      if (isDeadlock(err) && !p.on && attempt < DEADLOCK_ATTEMPTS) return this.writeBulk(p, attempt + 1);
      p.reject(err);
    }
  }

  /** Writes the state as the new base and drops the journal rows well behind it. */
  async compact(): Promise<void> {
    await unavailable(() =>
      this.sql.begin(async (sql) => {
        await lockWrites(sql as unknown as Sql);
        await this.catchUp(sql as unknown as Sql);
        const pruned = this.host.prune();
        if (pruned?.ops.length) {
          const seq = this.host.seq + 1;
          await sql`insert into wcm_journal (seq, ops) values (${seq}, ${JSON.stringify(pruned.ops)})`;
          this.host.seq = seq;
        }
        const seq = this.host.seq;
        await writeBase(sql as unknown as Sql, seq, this.host.snapshot(seq));
        await sql`delete from wcm_journal where seq <= ${seq - KEEP_BEHIND}`;
      }),
    );
    this.rowsSinceBase = 0;
  }

  /** Resolves once nothing of this process is being written. */
  async drain(): Promise<void> {
    while (this.writing) await this.writing;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.drain();
    this.closed = true;
    await Promise.all([this.sql, this.writer].map((c) => c.end({ timeout: 5 })));
  }
}
