// `wcm local import --store URL` streams a fixture's threads in COPY batches into a temporary table,
// without the write lock, then its transaction moves them into wcm_threads (--replace: into a new
// table swapped in) and only then takes the lock for the tail (src/store/seed.ts importShared,
// src/store/pg/table-import.ts, table-swap.ts): memory holds a batch, not the fixture, and other
// processes keep writing while the file is read and while the rows are moved. All or nothing still:
// a bad record in the last batch, after the earlier batches were copied aside, leaves the database
// as it was, with the message the JSON store gives; and another process sees none of an import or all of it.
import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetState, saveSnapshot } from '../../src/server/emulator/state.js';
import { FixtureError } from '../../src/store/fixture.js';
import { SWAP_MIN_ROWS } from '../../src/store/pg/table-swap.js';
import { THREAD_COLUMNS, threadRow } from '../../src/store/pg/threads.js';
import { ImportConflictError, importShared, seedStore } from '../../src/store/seed.js';
import { Store } from '../../src/store/store.js';
import type { Tx } from '../../src/store/records.js';
import { splitThread, type FullThread } from '../../src/store/threads.js';
import { freshDatabase } from '../support/postgres.js';
import { readFullThread } from '../support/threads.js';

const WS = '00000000-0000-4000-8000-0000000000a1';
const OTHER_WS = '00000000-0000-4000-8000-0000000000a2';
const uuid = (n: number, kind = 'c') => `00000000-0000-4000-8${kind}00-${String(n).padStart(12, '0')}`;
const N = 2500;
/** Threads per COPY here: the 2,500 threads go in three batches (1,000, 1,000, 500). */
const BATCH = 1000;
/** About 2.6 KB per thread: the 6.5 MB file is read in two pieces (fixture-stream.ts), batches written between them. */
const BODY = 'x'.repeat(1300);

function thread(i: number, over: Partial<FullThread> = {}): FullThread {
  return {
    id: uuid(i),
    workspace_id: WS,
    subject: `Subject ${i}\twith a tab`,
    status: i % 3 ? 'open' : 'closed',
    unread: i % 2 === 0,
    starred: false,
    contact: { id: uuid(i % 50, 'd'), name: `Name ${i}`, email: `p${i}@example.com`, phone: null },
    messages: [0, 1].map((k) => ({
      id: uuid(i * 2 + k, 'e'),
      channel: k ? 'email' : 'whatsapp',
      direction: k ? 'outbound' : 'inbound',
      body: `${BODY} ${i}.${k}`,
      created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000 + k * 1000).toISOString(),
    })),
    ...over,
  } as FullThread;
}

const THREADS = Array.from({ length: N }, (_, i) => thread(i));
let dir: string;
let workspaceFile: string;
let url: string;
let pg: Store;
let other: Store;
let raw: postgres.Sql;

/** A fixture file of `threads` (the workspace is in workspaceFile, imported with it as `wcm local import` takes several). */
function fixture(name: string, threads: unknown[]): string {
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify({ version: 1, threads }));
  return file;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Rows ever inserted into wcm_threads, rolled back or not: a sequence a row trigger advances
 * (`countInserts`), as nextval is never rolled back. Not pg_stat_user_tables: a backend that
 * flushed its statistics less than a second before publishes them up to 10 s later, and a test
 * that expects no rows would have to wait that out every time.
 */
async function rowsInserted(): Promise<number> {
  const [r] = await raw`select last_value, is_called from wcm_test_threads_inserted`;
  return r.is_called ? Number(r.last_value) : 0;
}

/**
 * Counts every row inserted into wcm_threads (a BEFORE trigger: also rows whose statement then fails).
 * A replacing import swaps a new wcm_threads in, without the trigger: count only before the first replace.
 */
async function countInserts(): Promise<void> {
  await raw`create sequence wcm_test_threads_inserted`;
  await raw`create function wcm_test_count_insert() returns trigger language plpgsql as
    $$ begin perform nextval('wcm_test_threads_inserted'); return new; end $$`;
  await raw`create trigger wcm_test_count_insert before insert on wcm_threads
    for each row execute function wcm_test_count_insert()`;
}

/**
 * Whether an import's connection has ended a COPY into its table aside (a temporary table, which
 * no other session can read): pg_stat_activity shows a connection's last statement and its state
 * at once. The import copies a full batch only (the rest waits for the end of the file), so a
 * COPY ended means a batch is aside. Waits up to 10 s.
 */
async function copiedAside(): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    const [r] = await raw`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and state = 'idle' and query like 'copy "wcm_threads_import"%'`;
    if (r.n) return true;
    await sleep(50);
  }
  return false;
}

/** What another process sees while `run` goes: the thread counts it read (its store, then its own connection). */
async function watch(run: () => Promise<unknown>): Promise<{ seen: Set<number>; result: unknown }> {
  const seen = new Set<number>();
  let done = false;
  const result = run()
    .catch((e: unknown) => e)
    .finally(() => (done = true));
  while (!done) {
    await other.sync();
    seen.add(await other.threads.size());
    seen.add(Number((await raw`select count(*)::int as n from wcm_threads`)[0].n));
    await sleep(5);
  }
  return { seen, result: await result };
}

/** The JSON store's message for the same files: the PostgreSQL import must word its refusal the same. */
async function jsonMessage(files: string[], seeded: string[] = []): Promise<string> {
  const json = await Store.open(path.join(mkdtempSync(path.join(dir, 'json-')), 'store.json'));
  try {
    if (seeded.length) await seedStore(json, seeded);
    const err = await seedStore(json, files).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixtureError);
    return (err as FixtureError).message;
  } finally {
    await json.close();
  }
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wcm-pg-import-'));
  workspaceFile = path.join(dir, 'workspace.json');
  writeFileSync(
    workspaceFile,
    JSON.stringify({
      version: 1,
      workspaces: [WS, OTHER_WS].map((id) => ({ id, name: id, stripe_account_id: null, members: [] })),
    }),
  );
  url = (await freshDatabase()).url;
  pg = await Store.openShared(url);
  other = await Store.openShared(url);
  raw = postgres(url, { max: 1, onnotice: () => {} });
  await countInserts();
}, 60_000);

afterAll(async () => {
  await raw?.end({ timeout: 5 });
  for (const s of [pg, other]) await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('an import into PostgreSQL, in COPY batches', () => {
  const all = () => fixture('all.json', THREADS);

  it('refuses a dangling workspace in its last thread after writing the batches before it, and changes nothing', async () => {
    const bad = fixture('bad-ref.json', [...THREADS.slice(0, N - 1), thread(N - 1, { workspace_id: uuid(9, 'f') })]);
    const files = [workspaceFile, bad];
    const { seen, result } = await watch(() => importShared(pg, files, { batchRows: BATCH }));
    expect(result).toBeInstanceOf(FixtureError);
    expect((result as FixtureError).problems).toEqual([
      {
        path: `$.threads[${N - 1}].workspace_id`,
        message: `refers to workspaces \`${uuid(9, 'f')}\`, which does not exist`,
      },
    ]);
    expect((result as FixtureError).message).toBe(await jsonMessage(files));
    // The batches were copied aside, never into wcm_threads (the old import wrote 2,000 rows there).
    expect(await rowsInserted()).toBe(0);
    expect([...seen]).toEqual([0]);
    expect(await pg.get('workspaces', WS)).toBeUndefined();
    expect(await other.threads.size()).toBe(0);
  });

  it('writes every thread, and another process sees none of them or all of them', async () => {
    const before = await rowsInserted();
    const { seen, result } = await watch(() => importShared(pg, [workspaceFile, all()], { batchRows: BATCH }));
    expect(result).toEqual({ workspaces: 2, threads: N });
    expect([...seen].every((n) => n === 0 || n === N)).toBe(true);
    expect(await rowsInserted()).toBe(before + N);
    await other.sync();
    expect(await other.threads.size()).toBe(N);
    expect(other.get('workspaces', WS)).toBeDefined();
    for (const i of [0, BATCH - 1, BATCH, 2 * BATCH + 7, N - 1])
      expect(await readFullThread(other, THREADS[i].id)).toEqual(THREADS[i]);
  });

  it('refuses ids the table holds already, found in the last batch, with the JSON store’s message', async () => {
    const before = await rowsInserted();
    const fresh = Array.from({ length: N }, (_, i) => thread(N + i));
    // The last batch holds one id imported above; the two batches before it are copied aside first.
    fresh[N - 10] = THREADS[4];
    const file = fixture('taken.json', fresh);
    const { seen, result } = await watch(() => importShared(pg, [file], { batchRows: BATCH }));
    expect(result).toBeInstanceOf(FixtureError);
    expect((result as FixtureError).problems).toEqual([
      { path: `$.threads[${N - 10}].id`, message: `id \`${THREADS[4].id}\` already exists in the store` },
    ]);
    expect((result as FixtureError).message).toBe(
      await jsonMessage([file], [workspaceFile, fixture('seeded.json', THREADS.slice(0, 10))]),
    );
    expect(await rowsInserted()).toBe(before);
    expect([...seen]).toEqual([N]);
    expect(await other.threads.size()).toBe(N);
    expect(await other.threads.get(fresh[0].id)).toBeUndefined();
  });

  it('refuses a duplicate and a schema error in the last batch as the JSON store does', async () => {
    const dup = fixture('dup.json', [...THREADS.slice(0, N - 1), thread(7)]);
    const dupErr = (await importShared(pg, [dup], { batchRows: BATCH }).catch((e) => e)) as FixtureError;
    expect(dupErr.problems).toEqual([
      { path: `$.threads[${N - 1}].id`, message: `duplicate id \`${uuid(7)}\` (also at $.threads[7].id)` },
    ]);
    expect(dupErr.message).toBe(await jsonMessage([dup], [workspaceFile]));
    const schema = fixture('schema.json', [...THREADS.slice(0, N - 1), { ...thread(N - 1), status: 'lost' }]);
    const schemaErr = (await importShared(pg, [schema], { batchRows: BATCH }).catch((e) => e)) as FixtureError;
    expect(schemaErr.problems.map((p) => p.path)).toEqual([`$.threads[${N - 1}].status`]);
    expect(schemaErr.message).toBe(await jsonMessage([schema]));
    expect(await other.threads.size()).toBe(N);
  });

  it('with replace, empties the table and copies straight into it; a failed replace keeps the old data', async () => {
    const next = Array.from({ length: N }, (_, i) => thread(10_000 + i, { workspace_id: OTHER_WS }));
    const bad = fixture('replace-bad.json', [...next.slice(0, N - 1), thread(1, { workspace_id: uuid(3, 'f') })]);
    const failed = await importShared(pg, [workspaceFile, bad], { replace: true, batchRows: BATCH }).catch((e) => e);
    expect(failed).toBeInstanceOf(FixtureError);
    expect(await other.threads.get(THREADS[0].id)).toBeDefined();
    const file = fixture('replace.json', next);
    const { seen, result } = await watch(() =>
      importShared(pg, [workspaceFile, file], { replace: true, batchRows: BATCH }),
    );
    expect(result).toEqual({ workspaces: 2, threads: N });
    expect([...seen].every((n) => n === N)).toBe(true);
    await other.sync();
    expect(await other.threads.get(THREADS[0].id)).toBeUndefined();
    expect(await readFullThread(other, next[N - 1].id)).toEqual(next[N - 1]);
  });
});

describe('an import into PostgreSQL reads its file without the write lock', () => {
  let pipes = 0;

  /**
   * Imports `threads` from a named pipe: the first half of the file is written, and once the import
   * has copied a batch aside (so it is reading, past its first checks), `during` runs: it must end
   * within 10 s while the import still waits for the rest of the file.
   */
  async function importThroughPipe(threads: FullThread[], during: () => Promise<unknown>) {
    const fifo = path.join(dir, `pipe-${pipes++}.json`);
    await execa('mkfifo', [fifo]);
    const text = JSON.stringify({ version: 1, threads });
    let done = false;
    const result = importShared(pg, [fifo], { batchRows: BATCH })
      .catch((e: unknown) => e)
      .finally(() => (done = true));
    const out = createWriteStream(fifo);
    await new Promise((r) => out.write(text.slice(0, text.length / 2), r));
    const aside = await copiedAside();
    const waited = await Promise.race([
      during(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('still waiting for the import')), 10_000)),
    ]);
    const stillReading = !done;
    out.end(text.slice(text.length / 2));
    return { aside, waited, stillReading, fifo, result: await result };
  }

  it('lets another process write while it reads, then imports every thread', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(20_000 + i));
    const ws = uuid(77, 'a');
    const { aside, stillReading, result } = await importThroughPipe(threads, () =>
      other.transact((tx) => tx.put('workspaces', { id: ws, name: 'meanwhile', stripe_account_id: null, members: [] })),
    );
    expect(aside).toBe(true);
    expect(stillReading).toBe(true);
    expect(result).toEqual({ threads: N });
    await pg.sync();
    expect(pg.get('workspaces', ws)).toMatchObject({ name: 'meanwhile' });
    expect(await readFullThread(pg, threads[N - 1].id)).toEqual(threads[N - 1]);
  });

  it('refuses a thread id another process took while it read, and changes nothing', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(30_000 + i));
    const size = await other.threads.size();
    // Thread 0 was copied aside (and found free) before another process imports the same id.
    const sneak = fixture('sneak.json', [threads[0]]);
    const { stillReading, fifo, result } = await importThroughPipe(threads, () => importShared(other, [sneak]));
    expect(stillReading).toBe(true);
    expect(result).toBeInstanceOf(FixtureError);
    expect((result as FixtureError).problems).toEqual([
      { path: '$.threads[0].id', message: `id \`${threads[0].id}\` already exists in the store` },
    ]);
    const copy = fixture('pipe-copy.json', threads);
    expect((result as FixtureError).message.replace(fifo, copy)).toBe(
      await jsonMessage([copy], [workspaceFile, sneak]),
    );
    expect(await other.threads.size()).toBe(size + 1);
    expect(await other.threads.get(threads[1].id)).toBeUndefined();
  });
});

describe('an import into PostgreSQL holds the write lock only after moving its threads', () => {
  let conns: postgres.Sql;
  beforeAll(async () => {
    conns = postgres(url, { max: 2, onnotice: () => {} });
    // The threads below name WS: imported by the cases above, put here when they were skipped.
    await pg.sync();
    if (!pg.get('workspaces', WS))
      await pg.transact((tx) => tx.put('workspaces', { id: WS, name: WS, stripe_account_id: null, members: [] }));
  });
  afterAll(() => conns?.end({ timeout: 5 }));

  /**
   * Backends of this database waiting for a lock: 'transactionid', another transaction's end (a
   * row or index entry it wrote); 'relation', a table another transaction locked.
   */
  async function waitingOn(event: string, atLeast = 1): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const [r] = await raw`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and wait_event = ${event}`;
      if (r.n >= atLeast) return;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`fewer than ${atLeast} backends ever waited for a ${event} lock`);
  }
  const waitingOnRows = (atLeast = 1) => waitingOn('transactionid', atLeast);

  /**
   * Another transaction inserts (uncommitted) the last of `threads`: the import's move inserts the
   * others, then waits for that one, without the write lock. `during` runs meanwhile; then the
   * blocking transaction rolls back and the import goes on.
   */
  async function importBlockedInMove(threads: FullThread[], during: () => Promise<unknown>, into = pg) {
    const blocker = await conns.reserve();
    const order: string[] = [];
    try {
      await blocker`begin`;
      const { thread: t, messages } = splitThread(threads.at(-1)!);
      await blocker`insert into wcm_threads ${blocker(threadRow(t, messages), ...THREAD_COLUMNS)}`;
      const importing = importShared(into, [fixture(`blocked-${threads[0].id}.json`, threads)], { batchRows: BATCH })
        .catch((e: unknown) => e)
        .finally(() => order.push('import'));
      await waitingOnRows(1);
      await Promise.race([
        during().finally(() => order.push('during')),
        new Promise((_, reject) => setTimeout(() => reject(new Error('still waiting for the import')), 10_000)),
      ]);
      await blocker`rollback`;
      return { order, result: await importing };
    } finally {
      await blocker`rollback`.catch(() => undefined);
      blocker.release();
    }
  }

  it('lets another process write during the move: its write commits before the import does', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(40_000 + i));
    const ws = uuid(79, 'a');
    const size = await other.threads.size();
    let seenDuring = -1;
    const { order, result } = await importBlockedInMove(threads, async () => {
      await other.transact((tx) =>
        tx.put('workspaces', { id: ws, name: 'during the move', stripe_account_id: null, members: [] }),
      );
      seenDuring = await other.threads.size();
    });
    expect(order).toEqual(['during', 'import']);
    expect(result).toEqual({ threads: N });
    // The moved rows were not visible to the other process before the import committed.
    expect(seenDuring).toBe(size);
    await pg.sync();
    expect(pg.get('workspaces', ws)).toMatchObject({ name: 'during the move' });
    expect(await other.threads.size()).toBe(size + N);
    expect(await readFullThread(other, threads[N - 1].id)).toEqual(threads[N - 1]);
  });

  it('fails clearly, writing nothing, when another process writes a thread it moved and PostgreSQL aborts it', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(50_000 + i));
    const size = await other.threads.size();
    const mine = splitThread(thread(50_000, { subject: 'written by the other process' } as Partial<FullThread>));
    const [{ ms }] = await raw`select setting::int as ms from pg_settings where name = 'deadlock_timeout'`;
    let writing: Promise<unknown> = Promise.resolve();
    const { result } = await importBlockedInMove(threads, async () => {
      // Holding the write lock, the other process's write waits for the import's moved row.
      writing = other.transact((tx) => {
        tx.put('threads', mine.thread);
        tx.put('thread_messages', mine.messages);
      });
      await waitingOnRows(2);
      // Past its deadlock check: the import, once it waits for the write lock, is the one to find the cycle.
      await new Promise((r) => setTimeout(r, Number(ms) + 300));
    });
    expect(result).toBeInstanceOf(ImportConflictError);
    expect((result as Error).message).toMatch(
      /Another process wrote a thread or record this import holds.*nothing was imported.*Run the import again/s,
    );
    await writing;
    expect(await other.threads.size()).toBe(size + 1);
    expect((await readFullThread(other, threads[0].id))?.subject).toBe('written by the other process');
    expect(await other.threads.get(threads[1].id)).toBeUndefined();
  });

  it.each([
    { kind: 'a write', base: 55_000, write: (s: Store, fn: (tx: Tx) => void) => s.transact(fn) },
    { kind: 'a bulk load', base: 63_000, write: (s: Store, fn: (tx: Tx) => void) => s.shared!.bulk(fn) },
  ])(
    'runs $kind PostgreSQL aborted to break that deadlock again: it and the import both succeed',
    async ({ base, write }) => {
      // Fresh processes whose deadlock checks run 3 s into a wait: the write, waiting first, finds
      // the cycle the import closes right after, and is the one aborted.
      const [{ db }] = await raw`select current_database() as db`;
      await raw`alter database ${raw(db as string)} set deadlock_timeout = '3s'`;
      const importer = await Store.openShared(url);
      const writer = await Store.openShared(url);
      try {
        const threads = Array.from({ length: N }, (_, i) => thread(base + i));
        const size = await writer.threads.size();
        const mine = splitThread(thread(base, { subject: 'written again after the deadlock' } as Partial<FullThread>));
        let writing: Promise<unknown> = Promise.resolve();
        const { result } = await importBlockedInMove(
          threads,
          async () => {
            writing = write(writer, (tx) => {
              tx.put('threads', mine.thread);
              tx.put('thread_messages', mine.messages);
            });
            await waitingOnRows(2);
          },
          importer,
        );
        expect(result).toEqual({ threads: N });
        await writing;
        expect(await writer.threads.size()).toBe(size + N);
        // The write ran again after the import committed: its thread is the one kept.
        expect((await readFullThread(other, threads[0].id))?.subject).toBe('written again after the deadlock');
        expect(await readFullThread(other, threads[N - 1].id)).toEqual(threads[N - 1]);
      } finally {
        await raw`alter database ${raw(db as string)} reset deadlock_timeout`;
        await importer.close();
        await writer.close();
      }
    },
  );

  it('makes another import of an id it moved wait, then refuse it with the JSON store’s message', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(66_000 + i));
    const sneak = fixture('sneak-moved.json', [threads[0]]);
    await other.sync();
    let sneaking: Promise<unknown> = Promise.resolve();
    const { result } = await importBlockedInMove(threads, async () => {
      // Its lookup finds the id free (the move is not committed); its own move waits on the unique index.
      sneaking = importShared(other, [sneak]).catch((e: unknown) => e);
      await waitingOnRows(2);
    });
    expect(result).toEqual({ threads: N });
    const err = await sneaking;
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).problems).toEqual([
      { path: '$.threads[0].id', message: `id \`${threads[0].id}\` already exists in the store` },
    ]);
    expect((err as FixtureError).message).toBe(
      await jsonMessage([sneak], [workspaceFile, fixture('sneak-first.json', threads.slice(0, 1))]),
    );
    expect(await readFullThread(other, threads[0].id)).toEqual(threads[0]);
  });

  it('refuses a workspace another process deleted while it read, and changes nothing', async () => {
    const gone = uuid(80, 'a');
    await other.transact((tx) =>
      tx.put('workspaces', { id: gone, name: 'soon gone', stripe_account_id: null, members: [] }),
    );
    await pg.sync();
    const size = await other.threads.size();
    const threads = Array.from({ length: N }, (_, i) => thread(60_000 + i, i === 3 ? { workspace_id: gone } : {}));
    const fifo = path.join(dir, 'pipe-deleted.json');
    await execa('mkfifo', [fifo]);
    const text = JSON.stringify({ version: 1, threads });
    const result = importShared(pg, [fifo], { batchRows: BATCH }).catch((e: unknown) => e);
    const out = createWriteStream(fifo);
    await new Promise((r) => out.write(text.slice(0, text.length / 2), r));
    // The import is reading (a batch copied aside, thread 3 checked) when the workspace goes.
    expect(await copiedAside()).toBe(true);
    await other.transact((tx) => tx.delete('workspaces', gone));
    out.end(text.slice(text.length / 2));
    const err = await result;
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).problems).toEqual([
      { path: '$.threads[3].workspace_id', message: `refers to workspaces \`${gone}\`, which does not exist` },
    ]);
    const copy = fixture('deleted-copy.json', threads);
    expect((err as FixtureError).message.replace(fifo, copy)).toBe(await jsonMessage([copy], [workspaceFile]));
    expect(await other.threads.size()).toBe(size);
    expect(await other.threads.get(threads[0].id)).toBeUndefined();
  });

  it('with replace, builds the new table aside and swaps it in under the lock (another process writes meanwhile), or copies the rows when a reader holds the table', async () => {
    const indexes = () =>
      raw`select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = 'wcm_threads' order by 1`;
    const before = await indexes();
    const [{ oid }] = await raw`select 'wcm_threads'::regclass::oid as oid`;
    const threads = Array.from({ length: N }, (_, i) => thread(70_000 + i));
    const ws = uuid(81, 'a');
    const fifo = path.join(dir, 'pipe-replace.json');
    await execa('mkfifo', [fifo]);
    const text = JSON.stringify({ version: 1, threads });
    const order: string[] = [];
    const blocker = await conns.reserve();
    try {
      const importing = importShared(pg, [workspaceFile, fifo], { replace: true, batchRows: BATCH })
        .catch((e: unknown) => e)
        .finally(() => order.push('import'));
      const out = createWriteStream(fifo);
      await new Promise((r) => out.write(text.slice(0, text.length / 2), r));
      expect(await copiedAside()).toBe(true);
      // Holding wcm_threads: the replace, once read, waits for it as it builds its table, without the write lock.
      await blocker`begin`;
      await blocker`lock table wcm_threads in access exclusive mode`;
      out.end(text.slice(text.length / 2));
      await waitingOn('relation');
      await Promise.race([
        other
          .transact((tx) =>
            tx.put('workspaces', { id: ws, name: 'during the build', stripe_account_id: null, members: [] }),
          )
          .finally(() => order.push('write')),
        new Promise((_, reject) => setTimeout(() => reject(new Error('still waiting for the import')), 10_000)),
      ]);
      await blocker`rollback`;
      expect(await importing).toEqual({ workspaces: 2, threads: N });
    } finally {
      await blocker`rollback`.catch(() => undefined);
      blocker.release();
    }
    expect(order).toEqual(['write', 'import']);
    // The replace cleared the workspace written before it committed, as it clears everything but the settings.
    await other.sync();
    expect(other.get('workspaces', ws)).toBeUndefined();
    expect(await other.threads.size()).toBe(N);
    expect(await readFullThread(other, threads[N - 1].id)).toEqual(threads[N - 1]);
    // Another table, with the same indexes under the same names, the primary key among them: a write of a thread upserts on it.
    expect((await raw`select 'wcm_threads'::regclass::oid as oid`)[0].oid).not.toBe(oid);
    expect(await indexes()).toEqual(before);
    const changed = splitThread(thread(70_000, { subject: 'after the swap' } as Partial<FullThread>));
    await other.transact((tx) => {
      tx.put('threads', changed.thread);
      tx.put('thread_messages', changed.messages);
    });
    expect((await readFullThread(pg, threads[0].id))?.subject).toBe('after the swap');
    expect(await pg.threads.size()).toBe(N);

    // A reader holding the table past 2 s: the rows are copied over instead (the same table stays).
    const [{ oid: kept }] = await raw`select 'wcm_threads'::regclass::oid as oid`;
    // (As many as a swap needs: fewer are copied anyway, below.)
    const again = Array.from({ length: SWAP_MIN_ROWS }, (_, i) => thread(80_000 + i));
    const reader = await conns.reserve();
    try {
      await reader`begin`;
      await reader`select count(*) from wcm_threads`;
      const result = await importShared(pg, [workspaceFile, fixture('replace-read.json', again)], { replace: true });
      expect(result).toEqual({ workspaces: 2, threads: SWAP_MIN_ROWS });
    } finally {
      await reader`rollback`;
      reader.release();
    }
    expect((await raw`select 'wcm_threads'::regclass::oid as oid`)[0].oid).toBe(kept);
    expect((await raw`select to_regclass('wcm_threads_next') as t`)[0].t).toBeNull();
    expect(await other.threads.size()).toBe(SWAP_MIN_ROWS);
    expect(await readFullThread(other, again[SWAP_MIN_ROWS - 1].id)).toEqual(again[SWAP_MIN_ROWS - 1]);
  });

  it('with replace, copies fewer threads than a swap needs under the lock: the same table, the new rows', async () => {
    await importShared(pg, [workspaceFile, fixture('all.json', THREADS)], { replace: true, batchRows: BATCH });
    const [{ oid }] = await raw`select 'wcm_threads'::regclass::oid as oid`;
    const few = Array.from({ length: SWAP_MIN_ROWS - 1 }, (_, i) => thread(60_000 + i));
    const result = await importShared(pg, [workspaceFile, fixture('replace-few.json', few)], { replace: true });
    expect(result).toEqual({ workspaces: 2, threads: SWAP_MIN_ROWS - 1 });
    expect((await raw`select 'wcm_threads'::regclass::oid as oid`)[0].oid).toBe(oid);
    expect(await other.threads.size()).toBe(SWAP_MIN_ROWS - 1);
    expect(await readFullThread(other, few[0].id)).toEqual(few[0]);
    expect(await readFullThread(other, thread(0).id)).toBeUndefined();
  });
  it('resets to a named snapshot by building its threads table aside: another process writes meanwhile, then every process sees the snapshot whole', async () => {
    const indexes = () =>
      raw`select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = 'wcm_threads' order by 1`;
    const saved = Array.from({ length: N }, (_, i) => thread(90_000 + i));
    await importShared(pg, [workspaceFile, fixture('to-save.json', saved)], { replace: true, batchRows: BATCH });
    // On PostgreSQL the data file plays no part: the snapshot is rows in the database.
    await saveSnapshot(pg, '', 'before-reset');
    const later = Array.from({ length: 100 }, (_, i) => thread(95_000 + i));
    await importShared(pg, [fixture('after-save.json', later)]);
    const before = await indexes();
    const [{ oid }] = await raw`select 'wcm_threads'::regclass::oid as oid`;
    const ws = uuid(82, 'a');
    const order: string[] = [];
    const blocker = await conns.reserve();
    try {
      // Holding the snapshot's threads: the reset waits for them as it builds its table, without the write lock.
      await blocker`begin`;
      await blocker`lock table wcm_named_threads in access exclusive mode`;
      const { seen, result } = await watch(async () => {
        const resetting = resetState(pg, '', 'before-reset').finally(() => order.push('reset'));
        await waitingOn('relation');
        await Promise.race([
          other
            .transact((tx) =>
              tx.put('workspaces', { id: ws, name: 'during the reset', stripe_account_id: null, members: [] }),
            )
            .finally(() => order.push('write')),
          new Promise((_, reject) => setTimeout(() => reject(new Error('still waiting for the reset')), 10_000)),
        ]);
        await blocker`rollback`;
        return resetting;
      });
      expect(result).toEqual({ workspaces: 2, threads: N });
      // Another process saw the threads before the reset or the snapshot's, never a mix.
      expect([...seen].every((n) => n === N + 100 || n === N)).toBe(true);
    } finally {
      await blocker`rollback`.catch(() => undefined);
      blocker.release();
    }
    expect(order).toEqual(['write', 'reset']);
    await other.sync();
    // The reset cleared the workspace written before it committed: it replaces everything but the settings.
    expect(other.get('workspaces', ws)).toBeUndefined();
    expect(await other.threads.size()).toBe(N);
    expect(await other.threads.get(later[0].id)).toBeUndefined();
    expect(await readFullThread(other, saved[N - 1].id)).toEqual(saved[N - 1]);
    // Another table, built aside and swapped in, with the same indexes under the same names.
    expect((await raw`select 'wcm_threads'::regclass::oid as oid`)[0].oid).not.toBe(oid);
    expect(await indexes()).toEqual(before);
    expect((await raw`select to_regclass('wcm_threads_next') as t`)[0].t).toBeNull();
  });
});
