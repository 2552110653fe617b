import type { Sql } from 'postgres';
import type { Problem, ThreadSink } from '../fixture-check.js';
import { FixtureError } from '../fixture-check.js';
import { splitThread, sortedMessages, type FullThread } from '../threads.js';
import { IdPositions } from './id-positions.js';
import { buildNext, swapIn } from './thread-swap.js';
import { copyLine, copyLines } from './thread-writes.js';
import { threadRow } from './threads.js';

/** Threads per COPY (and per query for the ids the table holds already): about 5 MB of rows. */
export const COPY_BATCH = 10_000;

/** A thread read and checked, as its row's COPY line, until its batch is written. */
interface Row {
  file: FileThreads;
  index: number;
  id: string;
  line: string;
}

/** SQLSTATE unique_violation: a moved id another process committed meanwhile. */
const UNIQUE_VIOLATION = '23505';

const exists = (id: string) => `id \`${id}\` already exists in the store`;

/** Where an import's threads wait, on its reserved connection, until it takes the write lock. */
const ASIDE = 'wcm_threads_import';

/**
 * An import's threads written as the fixture files are read, one COPY per batch, the next batch
 * read while one is written, into a temporary table on the import's reserved connection: the slow
 * part runs without the write lock, so other processes keep writing (a temporary table dies with
 * its session: a crash leaves nothing). What stays in memory is a batch or two, and per thread what
 * the checks across records need: its id (duplicates) and its workspace's (references, checked
 * once the file is read). Ids the table holds already are looked up per batch. The import's
 * transaction then moves the rows into `wcm_threads` (`move`, the unique index refusing an id
 * taken since) before it takes the write lock, which it holds only for the rest of the load.
 */
export class ThreadImport {
  private readonly files: FileThreads[] = [];
  private pending: Row[] = [];
  private writing: Promise<void> | null = null;
  private spoilt = false;
  /** With `replace`, once moved: the indexes of the table built aside (thread-swap.ts). */
  private next: Awaited<ReturnType<typeof buildNext>> | null = null;
  failure: unknown = undefined;

  /** `replace`: the table will be replaced, so no id in it is taken. `sql`: a reserved connection. */
  constructor(
    private readonly sql: Sql,
    private readonly replace: boolean,
    private readonly batchRows = COPY_BATCH,
  ) {}

  /** Makes the (empty) table aside, on the reserved connection. */
  async open(): Promise<void> {
    await this.sql`drop table if exists ${this.sql(ASIDE)}`;
    await this.sql`create temp table ${this.sql(ASIDE)} (like wcm_threads)`;
  }

  /** Drops the table aside (its connection goes back to the pool). */
  async close(): Promise<void> {
    await this.sql`drop table if exists ${this.sql(ASIDE)}`;
  }

  /** The sink for the next file's threads. */
  file(source: string): FileThreads {
    const f = new FileThreads(this, source, this.files.length);
    this.files.push(f);
    return f;
  }

  /** Whether a file before `before` holds the thread `id`. */
  earlier(before: number, id: string): boolean {
    for (let i = 0; i < before; i++) if (this.files[i].ids.has(id)) return true;
    return false;
  }

  add(row: Row | null): void {
    if (row) this.pending.push(row);
    else this.spoilt = true;
  }

  /** Once whole batches are ready, waits for the write before them and starts theirs. */
  async settle(): Promise<void> {
    if (this.pending.length < this.batchRows) return;
    await this.writing;
    if (this.failure) throw this.failure;
    const rows = this.pending.splice(0, this.pending.length - (this.pending.length % this.batchRows));
    this.writing = this.write(rows).catch((err: unknown) => void (this.failure = err));
  }

  /** Writes what is left, after every file was read and checked; refuses ids the table held. */
  async finish(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure;
    await this.write(this.pending);
    this.pending = [];
    this.refuse();
  }

  /**
   * Before the write lock, in the import's transaction on the same connection: moves the rows
   * into `wcm_threads`, where other processes cannot see them until the commit. The move is the
   * slow part (every index maintained row by row), so writers of other processes do not wait for
   * it. An id another process committed since it was looked up fails the insert (the unique
   * index): it is refused with the same message. Once moved, no other process can commit one of
   * these ids: its insert waits for this transaction, then fails. `replace` builds a new table
   * instead (thread-swap.ts), swapped in under the lock.
   */
  async move(sql: Sql): Promise<void> {
    if (this.replace) return void (this.next = await buildNext(sql, sql`select * from ${sql(ASIDE)}`));
    if (!this.count) return;
    await sql`savepoint wcm_move`;
    try {
      await sql`insert into wcm_threads select * from ${sql(ASIDE)}`;
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      await sql`rollback to savepoint wcm_move`;
      await this.refuseMoved(sql);
      throw err;
    }
  }

  /** Under the write lock: with `replace`, the table built by `move` in place of `wcm_threads`. */
  async commit(sql: Sql): Promise<void> {
    if (this.next) await swapIn(sql, this.next);
  }

  /**
   * After the commit of an import that moved its rows before the lock: fresh statistics (a first
   * page of 12 s without them, thread-writes.ts). Outside the transaction: ANALYZE holds a lock
   * that another writer's ANALYZE waits for, which must not be held while waiting for the write lock.
   */
  async analyzeMoved(): Promise<void> {
    if (!this.replace && this.count) await this.sql`analyze wcm_threads`;
  }

  private get count(): number {
    return this.files.reduce((n, f) => n + f.count, 0);
  }

  /** The ids another process committed since they were looked up, refused as ids the table held. */
  private async refuseMoved(sql: Sql): Promise<void> {
    const taken = await sql<Array<{ id: string }>>`
      select id from ${sql(ASIDE)} join wcm_threads using (id)`;
    for (const { id } of taken)
      for (const f of this.files) {
        const index = f.ids.get(id);
        if (index !== undefined) f.taken.push({ path: `$.threads[${index}].id`, message: exists(id) });
      }
    for (const f of this.files) f.taken.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
    this.refuse();
  }

  private refuse(): void {
    for (const f of this.files) if (f.taken.length) throw new FixtureError(f.source, f.taken);
  }

  /** After a failure: lets a write in flight end (its outcome no longer matters). */
  async abandon(): Promise<void> {
    await this.writing;
  }

  private async write(rows: Row[]): Promise<void> {
    for (let i = 0; i < rows.length; i += this.batchRows) {
      const batch = rows.slice(i, i + this.batchRows);
      if (!this.replace) await this.refuseTaken(batch);
      if (!this.spoilt)
        await copyLines(
          this.sql,
          ASIDE,
          batch.map((r) => r.line),
        );
    }
  }

  private async refuseTaken(batch: Row[]): Promise<void> {
    const ids = batch.map((r) => r.id);
    const taken = new Set(
      (await this.sql<Array<{ id: string }>>`select id from wcm_threads where id = any(${ids})`).map((r) => r.id),
    );
    if (!taken.size) return;
    this.spoilt = true;
    for (const r of batch)
      if (taken.has(r.id)) r.file.taken.push({ path: `$.threads[${r.index}].id`, message: exists(r.id) });
  }
}

/** One file's threads: checked as they come, then handed on as rows. */
class FileThreads implements ThreadSink {
  /** Each id's last position in the file. */
  readonly ids = new IdPositions();
  /** Per workspace id, the threads naming it. */
  private readonly workspaces = new Map<string, number[]>();
  readonly idProblems: Problem[] = [];
  /** Ids the table holds already: refused only if the files have no other problem (as before any write). */
  readonly taken: Problem[] = [];
  count = 0;

  constructor(
    private readonly all: ThreadImport,
    readonly source: string,
    private readonly no: number,
  ) {}

  get failure(): unknown {
    return this.all.failure;
  }

  thread(t: FullThread, index: number): void {
    const before = this.ids.swap(t.id, index);
    const problem =
      before !== undefined
        ? `duplicate id \`${t.id}\` (also at $.threads[${before}].id)`
        : this.all.earlier(this.no, t.id)
          ? exists(t.id)
          : null;
    if (problem) this.idProblems.push({ path: `$.threads[${index}].id`, message: problem });
    const named = this.workspaces.get(t.workspace_id);
    if (named) named.push(index);
    else this.workspaces.set(t.workspace_id, [index]);
    this.count++;
    if (problem) return this.all.add(null);
    const { thread, messages } = splitThread(sortedMessages(t));
    this.all.add({ file: this, index, id: t.id, line: copyLine(threadRow(thread, messages)) });
  }

  settle(): Promise<void> {
    return this.all.settle();
  }

  refProblems(has: (workspaceId: string) => boolean): Problem[] {
    const missing: Array<[number, string]> = [];
    for (const [ws, at] of this.workspaces) if (!has(ws)) for (const i of at) missing.push([i, ws]);
    return missing
      .sort((a, b) => a[0] - b[0])
      .map(([i, ws]) => ({
        path: `$.threads[${i}].workspace_id`,
        message: `refers to workspaces \`${ws}\`, which does not exist`,
      }));
  }
}
