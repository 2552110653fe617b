// `wcm local import --store URL` streams a fixture's threads in COPY batches into a temporary table,
// without the write lock, then its transaction moves them into wcm_threads (--replace: into a new
// table swapped in) and only then takes the lock for the tail (src/store/seed.ts importShared,
// src/store/pg/table-import.ts, table-swap.ts): memory holds a batch, not the fixture, and other
// processes keep writing while the file is read and while the rows are moved. All or nothing still:
// a bad record in the last batch, after the earlier batches were copied aside, leaves the database
// as it was, with the message the JSON store gives; and another process sees none of an import or all of it.
import { beforeAll, describe, expect, it } from 'vitest';
import { FixtureError } from '../../src/store/fixture.js';
import { SWAP_MIN_ROWS } from '../../src/store/pg/table-swap.js';
import { THREAD_COLUMNS, threadRow } from '../../src/store/pg/threads.js';
import { ImportConflictError, importShared } from '../../src/store/seed.js';
import { Store } from '../../src/store/store.js';
import type { Tx } from '../../src/store/records.js';
import { splitThread, type FullThread } from '../../src/store/threads.js';
import { BATCH, N, sleep, usePgImport, uuid, within10s, WS } from '../support/pg-import.js';
import { readFullThread } from '../support/threads.js';

const OTHER_WS = '00000000-0000-4000-8000-0000000000a2';
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
/** The workspaces are in db.baseFile, imported with a file of threads as `wcm local import` takes several. */
const db = usePgImport({
  dirPrefix: 'wcm-pg-import-',
  base: { workspaces: [WS, OTHER_WS].map((id) => ({ id, name: id, stripe_account_id: null, members: [] })) },
  counted: 'wcm_threads',
  aside: 'wcm_threads_import',
});
const { rowsInserted, waitingOn, waitingOnRows, jsonMessage } = db;

/** A fixture file of `threads`. */
const fixture = (name: string, threads: unknown[]) => db.fixture({ threads }, name);

/** What another process sees while `run` goes: the thread counts it read (its store, then its own connection). */
async function watch(run: () => Promise<unknown>): Promise<{ seen: Set<number>; result: unknown }> {
  const seen = new Set<number>();
  let done = false;
  const result = run()
    .catch((e: unknown) => e)
    .finally(() => (done = true));
  while (!done) {
    await db.other.sync();
    seen.add(await db.other.threads.size());
    seen.add(Number((await db.raw`select count(*)::int as n from wcm_threads`)[0].n));
    await sleep(5);
  }
  return { seen, result: await result };
}

describe('an import into PostgreSQL, in COPY batches', () => {
  const all = () => fixture('all.json', THREADS);

  it('refuses a dangling workspace in its last thread after writing the batches before it, and changes nothing', async () => {
    const bad = fixture('bad-ref.json', [...THREADS.slice(0, N - 1), thread(N - 1, { workspace_id: uuid(9, 'f') })]);
    const files = [db.baseFile, bad];
    const { seen, result } = await watch(() => importShared(db.pg, files, { batchRows: BATCH }));
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
    expect(await db.pg.get('workspaces', WS)).toBeUndefined();
    expect(await db.other.threads.size()).toBe(0);
  });

  it('writes every thread, and another process sees none of them or all of them', async () => {
    const before = await rowsInserted();
    const { seen, result } = await watch(() => importShared(db.pg, [db.baseFile, all()], { batchRows: BATCH }));
    expect(result).toEqual({ workspaces: 2, threads: N });
    expect([...seen].every((n) => n === 0 || n === N)).toBe(true);
    expect(await rowsInserted()).toBe(before + N);
    await db.other.sync();
    expect(await db.other.threads.size()).toBe(N);
    expect(db.other.get('workspaces', WS)).toBeDefined();
    for (const i of [0, BATCH - 1, BATCH, 2 * BATCH + 7, N - 1])
      expect(await readFullThread(db.other, THREADS[i].id)).toEqual(THREADS[i]);
  });

  it('refuses ids the table holds already, found in the last batch, with the JSON store’s message', async () => {
    const before = await rowsInserted();
    const fresh = Array.from({ length: N }, (_, i) => thread(N + i));
    // The last batch holds one id imported above; the two batches before it are copied aside first.
    fresh[N - 10] = THREADS[4];
    const file = fixture('taken.json', fresh);
    const { seen, result } = await watch(() => importShared(db.pg, [file], { batchRows: BATCH }));
    expect(result).toBeInstanceOf(FixtureError);
    expect((result as FixtureError).problems).toEqual([
      { path: `$.threads[${N - 10}].id`, message: `id \`${THREADS[4].id}\` already exists in the store` },
    ]);
    expect((result as FixtureError).message).toBe(
      await jsonMessage([file], [db.baseFile, fixture('seeded.json', THREADS.slice(0, 10))]),
    );
    expect(await rowsInserted()).toBe(before);
    expect([...seen]).toEqual([N]);
    expect(await db.other.threads.size()).toBe(N);
    expect(await db.other.threads.get(fresh[0].id)).toBeUndefined();
  });

  it('refuses a duplicate and a schema error in the last batch as the JSON store does', async () => {
    const dup = fixture('dup.json', [...THREADS.slice(0, N - 1), thread(7)]);
    const dupErr = (await importShared(db.pg, [dup], { batchRows: BATCH }).catch((e) => e)) as FixtureError;
    expect(dupErr.problems).toEqual([
      { path: `$.threads[${N - 1}].id`, message: `duplicate id \`${uuid(7)}\` (also at $.threads[7].id)` },
    ]);
    expect(dupErr.message).toBe(await jsonMessage([dup], [db.baseFile]));
    const schema = fixture('schema.json', [...THREADS.slice(0, N - 1), { ...thread(N - 1), status: 'lost' }]);
    const schemaErr = (await importShared(db.pg, [schema], { batchRows: BATCH }).catch((e) => e)) as FixtureError;
    expect(schemaErr.problems.map((p) => p.path)).toEqual([`$.threads[${N - 1}].status`]);
    expect(schemaErr.message).toBe(await jsonMessage([schema], [db.baseFile]));
    expect(await db.other.threads.size()).toBe(N);
  });

  it('with replace, empties the table and copies straight into it; a failed replace keeps the old data', async () => {
    const next = Array.from({ length: N }, (_, i) => thread(10_000 + i, { workspace_id: OTHER_WS }));
    const bad = fixture('replace-bad.json', [...next.slice(0, N - 1), thread(1, { workspace_id: uuid(3, 'f') })]);
    const failed = await importShared(db.pg, [db.baseFile, bad], { replace: true, batchRows: BATCH }).catch((e) => e);
    expect(failed).toBeInstanceOf(FixtureError);
    expect(await db.other.threads.get(THREADS[0].id)).toBeDefined();
    const file = fixture('replace.json', next);
    const { seen, result } = await watch(() =>
      importShared(db.pg, [db.baseFile, file], { replace: true, batchRows: BATCH }),
    );
    expect(result).toEqual({ workspaces: 2, threads: N });
    expect([...seen].every((n) => n === N)).toBe(true);
    await db.other.sync();
    expect(await db.other.threads.get(THREADS[0].id)).toBeUndefined();
    expect(await readFullThread(db.other, next[N - 1].id)).toEqual(next[N - 1]);
  });
});

describe('an import into PostgreSQL reads its file without the write lock', () => {
  /** Imports `threads` from a named pipe; `during` runs while it reads (db.importThroughPipe). */
  const importThroughPipe = (threads: FullThread[], during: () => Promise<unknown>) =>
    db.importThroughPipe({ threads }, { during });

  it('lets another process write while it reads, then imports every thread', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(20_000 + i));
    const ws = uuid(77, 'a');
    const { aside, stillReading, result } = await importThroughPipe(threads, () =>
      db.other.transact((tx) =>
        tx.put('workspaces', { id: ws, name: 'meanwhile', stripe_account_id: null, members: [] }),
      ),
    );
    expect(aside).toBe(true);
    expect(stillReading).toBe(true);
    expect(result).toEqual({ threads: N });
    await db.pg.sync();
    expect(db.pg.get('workspaces', ws)).toMatchObject({ name: 'meanwhile' });
    expect(await readFullThread(db.pg, threads[N - 1].id)).toEqual(threads[N - 1]);
  });

  it('refuses a thread id another process took while it read, and changes nothing', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(30_000 + i));
    const size = await db.other.threads.size();
    // Thread 0 was copied aside (and found free) before another process imports the same id.
    const sneak = fixture('sneak.json', [threads[0]]);
    const { stillReading, fifo, result } = await importThroughPipe(threads, () => importShared(db.other, [sneak]));
    expect(stillReading).toBe(true);
    expect(result).toBeInstanceOf(FixtureError);
    expect((result as FixtureError).problems).toEqual([
      { path: '$.threads[0].id', message: `id \`${threads[0].id}\` already exists in the store` },
    ]);
    const copy = fixture('pipe-copy.json', threads);
    expect((result as FixtureError).message.replace(fifo, copy)).toBe(await jsonMessage([copy], [db.baseFile, sneak]));
    expect(await db.other.threads.size()).toBe(size + 1);
    expect(await db.other.threads.get(threads[1].id)).toBeUndefined();
  });
});

describe('an import into PostgreSQL holds the write lock only after moving its threads', () => {
  beforeAll(async () => {
    // The threads below name WS: imported by the cases above, put here when they were skipped.
    await db.pg.sync();
    if (!db.pg.get('workspaces', WS))
      await db.pg.transact((tx) => tx.put('workspaces', { id: WS, name: WS, stripe_account_id: null, members: [] }));
  });

  /**
   * Another transaction inserts (uncommitted) the last of `threads`: the import's move inserts the
   * others, then waits for that one, without the write lock (db.importBlockedInMove).
   */
  const importBlockedInMove = (threads: FullThread[], during: () => Promise<unknown>, into?: Store) =>
    db.importBlockedInMove(
      fixture(`blocked-${threads[0].id}.json`, threads),
      (blocker) => {
        const { thread: t, messages } = splitThread(threads.at(-1)!);
        return blocker`insert into wcm_threads ${blocker(threadRow(t, messages), ...THREAD_COLUMNS)}`;
      },
      during,
      into,
    );

  it('lets another process write during the move: its write commits before the import does', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(40_000 + i));
    const ws = uuid(79, 'a');
    const size = await db.other.threads.size();
    let seenDuring = -1;
    const { order, result } = await importBlockedInMove(threads, async () => {
      await db.other.transact((tx) =>
        tx.put('workspaces', { id: ws, name: 'during the move', stripe_account_id: null, members: [] }),
      );
      seenDuring = await db.other.threads.size();
    });
    expect(order).toEqual(['during', 'import']);
    expect(result).toEqual({ threads: N });
    // The moved rows were not visible to the other process before the import committed.
    expect(seenDuring).toBe(size);
    await db.pg.sync();
    expect(db.pg.get('workspaces', ws)).toMatchObject({ name: 'during the move' });
    expect(await db.other.threads.size()).toBe(size + N);
    expect(await readFullThread(db.other, threads[N - 1].id)).toEqual(threads[N - 1]);
  });

  it('fails clearly, writing nothing, when another process writes a thread it moved and PostgreSQL aborts it', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(50_000 + i));
    const size = await db.other.threads.size();
    const mine = splitThread(thread(50_000, { subject: 'written by the other process' } as Partial<FullThread>));
    const [{ ms }] = await db.raw`select setting::int as ms from pg_settings where name = 'deadlock_timeout'`;
    let writing: Promise<unknown> = Promise.resolve();
    const { result } = await importBlockedInMove(threads, async () => {
      // Holding the write lock, the other process's write waits for the import's moved row.
      writing = db.other.transact((tx) => {
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
    expect(await db.other.threads.size()).toBe(size + 1);
    expect((await readFullThread(db.other, threads[0].id))?.subject).toBe('written by the other process');
    expect(await db.other.threads.get(threads[1].id)).toBeUndefined();
  });

  it.each([
    { kind: 'a write', base: 55_000, write: (s: Store, fn: (tx: Tx) => void) => s.transact(fn) },
    { kind: 'a bulk load', base: 63_000, write: (s: Store, fn: (tx: Tx) => void) => s.shared!.bulk(fn) },
  ])(
    'runs $kind PostgreSQL aborted to break that deadlock again: it and the import both succeed',
    async ({ base, write }) => {
      // Fresh processes whose deadlock checks run 3 s into a wait: the write, waiting first, finds
      // the cycle the import closes right after, and is the one aborted.
      const [{ database }] = await db.raw`select current_database() as database`;
      await db.raw`alter database ${db.raw(database as string)} set deadlock_timeout = '3s'`;
      const importer = await Store.openShared(db.url);
      const writer = await Store.openShared(db.url);
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
        expect((await readFullThread(db.other, threads[0].id))?.subject).toBe('written again after the deadlock');
        expect(await readFullThread(db.other, threads[N - 1].id)).toEqual(threads[N - 1]);
      } finally {
        await db.raw`alter database ${db.raw(database as string)} reset deadlock_timeout`;
        await importer.close();
        await writer.close();
      }
    },
  );

  it('makes another import of an id it moved wait, then refuse it with the JSON store’s message', async () => {
    const threads = Array.from({ length: N }, (_, i) => thread(66_000 + i));
    const sneak = fixture('sneak-moved.json', [threads[0]]);
    await db.other.sync();
    let sneaking: Promise<unknown> = Promise.resolve();
    const { result } = await importBlockedInMove(threads, async () => {
      // Its lookup finds the id free (the move is not committed); its own move waits on the unique index.
      sneaking = importShared(db.other, [sneak]).catch((e: unknown) => e);
      await waitingOnRows(2);
    });
    expect(result).toEqual({ threads: N });
    const err = await sneaking;
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).problems).toEqual([
      { path: '$.threads[0].id', message: `id \`${threads[0].id}\` already exists in the store` },
    ]);
    expect((err as FixtureError).message).toBe(
      await jsonMessage([sneak], [db.baseFile, fixture('sneak-first.json', threads.slice(0, 1))]),
    );
    expect(await readFullThread(db.other, threads[0].id)).toEqual(threads[0]);
  });

  it('refuses a workspace another process deleted while it read, and changes nothing', async () => {
    const gone = uuid(80, 'a');
    await db.other.transact((tx) =>
      tx.put('workspaces', { id: gone, name: 'soon gone', stripe_account_id: null, members: [] }),
    );
    await db.pg.sync();
    const size = await db.other.threads.size();
    const threads = Array.from({ length: N }, (_, i) => thread(60_000 + i, i === 3 ? { workspace_id: gone } : {}));
    // The import is reading (a batch copied aside, thread 3 checked) when the workspace goes.
    const {
      aside,
      fifo,
      copy,
      result: err,
    } = await db.importThroughPipe(
      { threads },
      { during: () => db.other.transact((tx) => tx.delete('workspaces', gone)) },
    );
    expect(aside).toBe(true);
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).problems).toEqual([
      { path: '$.threads[3].workspace_id', message: `refers to workspaces \`${gone}\`, which does not exist` },
    ]);
    expect((err as FixtureError).message.replace(fifo, copy)).toBe(await jsonMessage([copy], [db.baseFile]));
    expect(await db.other.threads.size()).toBe(size);
    expect(await db.other.threads.get(threads[0].id)).toBeUndefined();
  });

  it('with replace, builds the new table aside and swaps it in under the lock (another process writes meanwhile), or copies the rows when a reader holds the table', async () => {
    const indexes = () =>
      db.raw`select indexname, indexdef from pg_indexes where schemaname = current_schema() and tablename = 'wcm_threads' order by 1`;
    const before = await indexes();
    const [{ oid }] = await db.raw`select 'wcm_threads'::regclass::oid as oid`;
    const threads = Array.from({ length: N }, (_, i) => thread(70_000 + i));
    const ws = uuid(81, 'a');
    const order: string[] = [];
    const blocker = await db.conns.reserve();
    try {
      const { aside, result } = await db.importThroughPipe(
        { threads },
        {
          base: true,
          replace: true,
          order,
          // Holding wcm_threads: the replace, once read, waits for it as it builds its table, without the write lock.
          during: async () => {
            await blocker`begin`;
            await blocker`lock table wcm_threads in access exclusive mode`;
          },
          after: async () => {
            await waitingOn('relation');
            await within10s(
              db.other
                .transact((tx) =>
                  tx.put('workspaces', { id: ws, name: 'during the build', stripe_account_id: null, members: [] }),
                )
                .finally(() => order.push('write')),
            );
            await blocker`rollback`;
          },
        },
      );
      expect(aside).toBe(true);
      expect(result).toEqual({ workspaces: 2, threads: N });
    } finally {
      await blocker`rollback`.catch(() => undefined);
      blocker.release();
    }
    expect(order).toEqual(['write', 'import']);
    // The replace cleared the workspace written before it committed, as it clears everything but the settings.
    await db.other.sync();
    expect(db.other.get('workspaces', ws)).toBeUndefined();
    expect(await db.other.threads.size()).toBe(N);
    expect(await readFullThread(db.other, threads[N - 1].id)).toEqual(threads[N - 1]);
    // Another table, with the same indexes under the same names, the primary key among them: a write of a thread upserts on it.
    expect((await db.raw`select 'wcm_threads'::regclass::oid as oid`)[0].oid).not.toBe(oid);
    expect(await indexes()).toEqual(before);
    const changed = splitThread(thread(70_000, { subject: 'after the swap' } as Partial<FullThread>));
    await db.other.transact((tx) => {
      tx.put('threads', changed.thread);
      tx.put('thread_messages', changed.messages);
    });
    expect((await readFullThread(db.pg, threads[0].id))?.subject).toBe('after the swap');
    expect(await db.pg.threads.size()).toBe(N);

    // A reader holding the table past 2 s: the rows are copied over instead (the same table stays).
    const [{ oid: kept }] = await db.raw`select 'wcm_threads'::regclass::oid as oid`;
    // (As many as a swap needs: fewer are copied anyway, below.)
    const again = Array.from({ length: SWAP_MIN_ROWS }, (_, i) => thread(80_000 + i));
    const reader = await db.conns.reserve();
    try {
      await reader`begin`;
      await reader`select count(*) from wcm_threads`;
      const result = await importShared(db.pg, [db.baseFile, fixture('replace-read.json', again)], { replace: true });
      expect(result).toEqual({ workspaces: 2, threads: SWAP_MIN_ROWS });
    } finally {
      await reader`rollback`;
      reader.release();
    }
    expect((await db.raw`select 'wcm_threads'::regclass::oid as oid`)[0].oid).toBe(kept);
    expect((await db.raw`select to_regclass('wcm_threads_next') as t`)[0].t).toBeNull();
    expect(await db.other.threads.size()).toBe(SWAP_MIN_ROWS);
    expect(await readFullThread(db.other, again[SWAP_MIN_ROWS - 1].id)).toEqual(again[SWAP_MIN_ROWS - 1]);
  });

  it('with replace, copies fewer threads than a swap needs under the lock: the same table, the new rows', async () => {
    await importShared(db.pg, [db.baseFile, fixture('all.json', THREADS)], { replace: true, batchRows: BATCH });
    const [{ oid }] = await db.raw`select 'wcm_threads'::regclass::oid as oid`;
    const few = Array.from({ length: SWAP_MIN_ROWS - 1 }, (_, i) => thread(60_000 + i));
    const result = await importShared(db.pg, [db.baseFile, fixture('replace-few.json', few)], { replace: true });
    expect(result).toEqual({ workspaces: 2, threads: SWAP_MIN_ROWS - 1 });
    expect((await db.raw`select 'wcm_threads'::regclass::oid as oid`)[0].oid).toBe(oid);
    expect(await db.other.threads.size()).toBe(SWAP_MIN_ROWS - 1);
    expect(await readFullThread(db.other, few[0].id)).toEqual(few[0]);
    expect(await readFullThread(db.other, thread(0).id)).toBeUndefined();
  });
});
