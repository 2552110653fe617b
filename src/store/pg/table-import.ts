import type { Fragment, Sql } from 'postgres';
import { FixtureError } from '../fixture-check.js';
import { articleRecord } from '../fixture.js';
import type { CollectionName } from '../records.js';
import { splitThread, sortedMessages, type FullThread } from '../threads.js';
import { copyLine, copyLines } from './copy.js';
import { FileRecords } from './import-file.js';
import { KEY_COLUMNS, keyRows, RECORD_COLUMNS, recordRow } from './records.js';
import { buildNext, swapIn, type Next } from './table-swap.js';
import { THREAD_COLUMNS, threadRow } from './threads.js';

/** Records per COPY (and per query for the ids the tables hold already): about 5 MB of threads. */
export const COPY_BATCH = 10_000;

/** A record read and checked, as its rows' COPY lines (one string per table of TABLES, '' for none), until its batch is written. */
export interface Row {
  file: FileRecords;
  c: string;
  index: number;
  id: string;
  lines: string[];
}

/** SQLSTATE unique_violation: a moved id another process committed meanwhile. */
const UNIQUE_VIOLATION = '23505';

/**
 * A table an import fills, and where its rows wait, on the import's reserved connection, until it
 * takes the write lock (a temporary table: it dies with its session, so a crash leaves nothing).
 * `rows`: the rows aside as a query of `columns`, in the order they were read.
 */
interface Table {
  name: string;
  aside: string;
  columns: readonly string[];
  rows: (sql: Sql) => Fragment;
}

const table = (name: string, columns: readonly string[], order = ''): Table => ({
  name,
  aside: `${name}_import`,
  columns,
  rows: (sql) => sql`select ${sql(columns as string[])} from ${sql(`${name}_import`)} ${sql.unsafe(order)}`,
});

// `wcm_records_import` numbers its rows as they come (its `pos` identity): the first positions of
// the records they become (records.ts) follow the file.
const TABLES = [
  table('wcm_threads', THREAD_COLUMNS),
  table('wcm_records', RECORD_COLUMNS, 'order by pos'),
  table('wcm_record_keys', KEY_COLUMNS),
];
const [THREADS, RECORDS] = TABLES;

/** A record's rows as COPY lines, per table of TABLES. */
function linesOf(c: string, rec: unknown): string[] {
  if (c === 'threads') {
    const { thread, messages } = splitThread(sortedMessages(rec as FullThread));
    return [copyLine(THREAD_COLUMNS, threadRow(thread, messages)), '', ''];
  }
  const r = (c === 'articles' ? articleRecord(rec as never) : rec) as { id: string };
  const keys = keyRows(c as CollectionName, r)
    .map((k) => copyLine(KEY_COLUMNS, k))
    .join('');
  return ['', copyLine(RECORD_COLUMNS, recordRow(c as CollectionName, r)), keys];
}

/**
 * An import's table-kept records (threads, and the areas' records of `collections`) written as the
 * fixture files are read, one COPY per table and batch, the next batch read while one is written,
 * into temporary tables on the import's reserved connection: the slow part runs without the write
 * lock, so other processes keep writing. What stays in memory is a batch or two, and per record
 * what the checks across records need: its id (duplicates) and the ids it refers to (import-file.ts).
 * Ids the tables hold already are looked up per batch. The import's transaction then moves the rows
 * into their tables (`move`, the unique indexes refusing an id taken since) before it takes the
 * write lock, which it holds only for the rest of the load.
 */
export class TableImport {
  private readonly files: FileRecords[] = [];
  private pending: Row[] = [];
  private writing: Promise<void> | null = null;
  private spoilt = false;
  /** The tables with rows aside. */
  private readonly filled = new Set<Table>();
  /** With `replace`, once moved: the tables built aside (table-swap.ts). */
  private next: Next[] = [];
  failure: unknown = undefined;

  /**
   * `collections`: those it takes (threads always). `replace`: the tables will be replaced, so no
   * id in them is taken. `sql`: a reserved connection.
   */
  constructor(
    private readonly sql: Sql,
    private readonly collections: ReadonlySet<string>,
    private readonly replace: boolean,
    private readonly batchRows = COPY_BATCH,
  ) {}

  takes(c: string): boolean {
    return this.collections.has(c);
  }

  /** Makes the (empty) tables aside, on the reserved connection. */
  async open(): Promise<void> {
    for (const t of TABLES) {
      await this.sql`drop table if exists ${this.sql(t.aside)}`;
      await this.sql`create temp table ${this.sql(t.aside)} (like ${this.sql(t.name)} including identity)`;
    }
  }

  /** Drops the tables aside (their connection goes back to the pool). */
  async close(): Promise<void> {
    for (const t of TABLES) await this.sql`drop table if exists ${this.sql(t.aside)}`;
  }

  /** The sink for the next file's records. */
  file(source: string): FileRecords {
    const f = new FileRecords(this, source, this.files.length);
    this.files.push(f);
    return f;
  }

  /** Whether a file before `before` holds the record `id` of `c`. */
  earlier(before: number, c: string, id: string): boolean {
    for (let i = 0; i < before; i++) if (this.files[i].has(c, id)) return true;
    return false;
  }

  /** A record that passed the checks so far, or null for one that did not (nothing is written after it). */
  add(file: FileRecords, c: string, index: number, rec: { id: string } | null): void {
    if (rec) this.pending.push({ file, c, index, id: rec.id, lines: linesOf(c, rec) });
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

  /** Writes what is left, after every file was read and checked; refuses ids the tables held. */
  async finish(): Promise<void> {
    await this.writing;
    if (this.failure) throw this.failure;
    await this.write(this.pending);
    this.pending = [];
    this.refuse();
  }

  /**
   * Before the write lock, in the import's transaction on the same connection: moves the rows into
   * their tables, where other processes cannot see them until the commit. The move is the slow
   * part (every index maintained row by row), so writers of other processes do not wait for it. An
   * id another process committed since it was looked up fails the insert (the unique index): it is
   * refused with the same message. Once moved, no other process can commit one of these ids: its
   * insert waits for this transaction, then fails. `replace` builds new tables instead
   * (table-swap.ts), swapped in under the lock.
   */
  async move(sql: Sql): Promise<void> {
    if (this.replace) {
      for (const t of TABLES) this.next.push(await buildNext(sql, t.name, t.columns, t.rows(sql)));
      return;
    }
    if (!this.filled.size) return;
    await sql`savepoint wcm_move`;
    try {
      for (const t of TABLES)
        if (this.filled.has(t)) await sql`insert into ${sql(t.name)} (${sql(t.columns as string[])}) ${t.rows(sql)}`;
    } catch (err) {
      if ((err as { code?: string }).code !== UNIQUE_VIOLATION) throw err;
      await sql`rollback to savepoint wcm_move`;
      await this.refuseMoved(sql);
      throw err;
    }
  }

  /** Under the write lock: with `replace`, the tables built by `move` in place of the old ones. */
  async commit(sql: Sql): Promise<void> {
    for (const next of this.next) await swapIn(sql, next);
  }

  /**
   * After the commit of an import that moved its rows before the lock: fresh statistics (a first
   * page of 12 s without them, thread-writes.ts). Outside the transaction: ANALYZE holds a lock
   * that another writer's ANALYZE waits for, which must not be held while waiting for the write lock.
   */
  async analyzeMoved(): Promise<void> {
    if (this.replace) return;
    for (const t of this.filled) await this.sql`analyze ${this.sql(t.name)}`;
  }

  /** The ids another process committed since they were looked up, refused as ids the tables held. */
  private async refuseMoved(sql: Sql): Promise<void> {
    const taken = await sql<Array<{ c: string; id: string }>>`
      select 'threads' as c, id from ${sql(THREADS.aside)} join wcm_threads using (id)
      union all
      select collection, id from ${sql(RECORDS.aside)} join wcm_records using (collection, id)`;
    for (const { c, id } of taken) for (const f of this.files) f.refuseMoved(c, id);
    this.refuse();
  }

  private refuse(): void {
    for (const f of this.files) {
      const taken = f.takenProblems();
      if (taken.length) throw new FixtureError(f.source, taken);
    }
  }

  /** After a failure: lets a write in flight end (its outcome no longer matters). */
  async abandon(): Promise<void> {
    await this.writing;
  }

  private async write(rows: Row[]): Promise<void> {
    for (let i = 0; i < rows.length; i += this.batchRows) {
      const batch = rows.slice(i, i + this.batchRows);
      if (!this.replace) await this.refuseTaken(batch);
      if (this.spoilt) continue;
      for (const [n, t] of TABLES.entries()) {
        const lines = batch.map((r) => r.lines[n]).filter((l) => l);
        if (!lines.length) continue;
        await copyLines(this.sql, t.aside, t.columns, lines);
        this.filled.add(t);
      }
    }
  }

  private async refuseTaken(batch: Row[]): Promise<void> {
    const threads = batch.filter((r) => r.c === 'threads').map((r) => r.id);
    const recs = batch.filter((r) => r.c !== 'threads');
    const taken = new Set<string>();
    if (threads.length)
      for (const r of await this.sql<Array<{ id: string }>>`select id from wcm_threads where id = any(${threads})`)
        taken.add(`threads/${r.id}`);
    if (recs.length)
      for (const r of await this.sql<Array<{ c: string; id: string }>>`
        select collection as c, id from wcm_records where (collection, id) in
          (select * from unnest(${recs.map((r) => r.c)}::text[], ${recs.map((r) => r.id)}::text[]))`)
        taken.add(`${r.c}/${r.id}`);
    if (!taken.size) return;
    this.spoilt = true;
    for (const r of batch) if (taken.has(`${r.c}/${r.id}`)) r.file.taken(r.c, r.index, r.id);
  }
}
