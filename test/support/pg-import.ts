import { createWriteStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import postgres from 'postgres';
import { afterAll, beforeAll, expect } from 'vitest';
import { FixtureError } from '../../src/store/fixture.js';
import { importShared, seedStore } from '../../src/store/seed.js';
import { Store } from '../../src/store/store.js';
import { freshDatabase } from './postgres.js';

// What the tests of `wcm local import --store URL` (test/store/pg-import*.test.ts) share: a database
// of their own, two processes' stores on it, an import held in the middle of its file or its move.

export const WS = '00000000-0000-4000-8000-0000000000a1';
export const uuid = (n: number, kind = 'c') => `00000000-0000-4000-8${kind}00-${String(n).padStart(12, '0')}`;
/** Threads or records imported at once: three COPY batches of BATCH. */
export const N = 2500;
/** Rows per COPY here: N go in three batches (1,000, 1,000, 500); half a file of N holds a whole batch. */
export const BATCH = 1000;

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `p`, or a failure saying the test was still waiting for `what` after 10 s. */
export async function within10s<T>(p: Promise<T>, what = 'the import'): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still waiting for ${what}`)), 10_000);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

export interface PgImportOptions {
  /** Prefix of the temp directory. */
  dirPrefix: string;
  /** The members of `baseFile`, imported before the files that name its workspaces or lists. */
  base: Record<string, unknown[]>;
  /** The table whose inserts rowsInserted counts. */
  counted: string;
  /** LIKE pattern of the tables aside an import copies its batches into (copiedAside). */
  aside: string;
}

/**
 * A database, a temp directory and stores for an import test file: call at the top of the file.
 * `pg` imports, `other` is another process; `raw` (one connection) watches, `conns` (two) blocks.
 * Read the connections inside hooks and tests (they are opened in beforeAll).
 */
export function usePgImport(opts: PgImportOptions) {
  let state: { dir: string; url: string; pg: Store; other: Store; raw: postgres.Sql; conns: postgres.Sql } | undefined;
  const get = () => {
    if (!state) throw new Error('usePgImport: the database is only there inside hooks and tests');
    return state;
  };
  let files = 0;

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), opts.dirPrefix));
    writeFileSync(path.join(dir, 'base.json'), JSON.stringify({ version: 1, ...opts.base }));
    const { url } = await freshDatabase();
    const onnotice = () => {};
    state = {
      dir,
      url,
      pg: await Store.openShared(url),
      other: await Store.openShared(url),
      raw: postgres(url, { max: 1, onnotice }),
      conns: postgres(url, { max: 2, onnotice }),
    };
    await countInserts(state.raw, opts.counted);
  }, 60_000);

  afterAll(async () => {
    if (!state) return;
    await state.raw.end({ timeout: 5 });
    await state.conns.end({ timeout: 5 });
    for (const s of [state.pg, state.other]) await s.close();
    rmSync(state.dir, { recursive: true, force: true });
  });

  /** A fixture file of `members` (named `name`, or numbered). */
  function fixture(members: Record<string, unknown[]>, name = `f${files++}.json`): string {
    const file = path.join(get().dir, name);
    writeFileSync(file, JSON.stringify({ version: 1, ...members }));
    return file;
  }

  /**
   * Rows ever inserted into the counted table, rolled back or not: a sequence a row trigger advances
   * (countInserts), as nextval is never rolled back. Not pg_stat_user_tables: a backend that
   * flushed its statistics less than a second before publishes them up to 10 s later, and a test
   * that expects no rows would have to wait that out every time.
   */
  async function rowsInserted(): Promise<number> {
    const [r] = await get().raw`select last_value, is_called from wcm_test_inserted`;
    return r.is_called ? Number(r.last_value) : 0;
  }

  /**
   * Whether an import's connection has ended a COPY into a table aside (a temporary table, which
   * no other session can read): pg_stat_activity shows a connection's last statement and its state
   * at once. The import copies a full batch only (the rest waits for the end of the file), so a
   * COPY ended means a batch is aside. Waits up to 10 s.
   */
  async function copiedAside(): Promise<boolean> {
    for (let i = 0; i < 200; i++) {
      const [r] = await get().raw`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and state = 'idle' and query like ${`copy "${opts.aside}"%`}`;
      if (r.n) return true;
      await sleep(50);
    }
    return false;
  }

  /**
   * Until `atLeast` backends of this database wait for a lock: 'transactionid', another
   * transaction's end (a row or index entry it wrote); 'relation', a table another transaction locked.
   */
  async function waitingOn(event: string, atLeast = 1): Promise<void> {
    for (let i = 0; i < 500; i++) {
      const [r] = await get().raw`select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and wait_event = ${event}`;
      if (r.n >= atLeast) return;
      await sleep(20);
    }
    throw new Error(`fewer than ${atLeast} backends ever waited for a ${event} lock`);
  }
  const waitingOnRows = (atLeast = 1) => waitingOn('transactionid', atLeast);

  /** The JSON store's message for the same files (`seeded` imported first): the PostgreSQL import must word its refusal the same. */
  async function jsonMessage(files: string[], seeded: string[] = []): Promise<string> {
    const json = await Store.open(path.join(mkdtempSync(path.join(get().dir, 'json-')), 'store.json'));
    try {
      if (seeded.length) await seedStore(json, seeded);
      const err = await seedStore(json, files).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FixtureError);
      return (err as FixtureError).message;
    } finally {
      await json.close();
    }
  }

  /**
   * Imports `members` (after baseFile with `base`) from a named pipe: the first half of the file is
   * written, and once the import has copied a batch aside (so it is reading, past its first checks),
   * `during` runs: it must end within 10 s while the import still waits for the rest of the file.
   * Then the rest is written and `after` runs. `order` gets 'import' when the import ends.
   * `copy` is the same bytes in a file, for the JSON store's message.
   */
  async function importThroughPipe(
    members: Record<string, unknown[]>,
    o: {
      base?: boolean;
      replace?: boolean;
      during?: () => Promise<unknown>;
      after?: () => Promise<unknown>;
      order?: string[];
    } = {},
  ) {
    const { pg, dir } = get();
    const fifo = path.join(dir, `pipe-${files++}.json`);
    await execa('mkfifo', [fifo]);
    const text = JSON.stringify({ version: 1, ...members });
    let done = false;
    const result = importShared(pg, o.base ? [baseFile(), fifo] : [fifo], { batchRows: BATCH, replace: o.replace })
      .catch((e: unknown) => e)
      .finally(() => {
        done = true;
        o.order?.push('import');
      });
    const out = createWriteStream(fifo);
    await new Promise((r) => out.write(text.slice(0, text.length / 2), r));
    const aside = await copiedAside();
    if (o.during) await within10s(o.during());
    const stillReading = !done;
    out.end(text.slice(text.length / 2));
    await o.after?.();
    return { aside, stillReading, fifo, copy: fixture(members), result: await result };
  }

  /**
   * Another transaction (`block`, on a connection of `conns` in a transaction) inserts, uncommitted,
   * the last row of `file`: the import's move inserts the others, then waits for that one, without
   * the write lock. `during` runs meanwhile (within 10 s); then the blocking transaction rolls back
   * and the import goes on. `order` tells whether `during` or the import ended first.
   */
  async function importBlockedInMove(
    file: string,
    block: (sql: postgres.ReservedSql) => Promise<unknown>,
    during: () => Promise<unknown>,
    into?: Store,
  ) {
    const { pg, conns } = get();
    const blocker = await conns.reserve();
    const order: string[] = [];
    try {
      await blocker`begin`;
      await block(blocker);
      const importing = importShared(into ?? pg, [file], { batchRows: BATCH })
        .catch((e: unknown) => e)
        .finally(() => order.push('import'));
      await waitingOnRows(1);
      await within10s(during().finally(() => order.push('during')));
      await blocker`rollback`;
      return { order, result: await importing };
    } finally {
      await blocker`rollback`.catch(() => undefined);
      blocker.release();
    }
  }

  const baseFile = () => path.join(get().dir, 'base.json');

  return {
    get dir() {
      return get().dir;
    },
    get url() {
      return get().url;
    },
    get pg() {
      return get().pg;
    },
    get other() {
      return get().other;
    },
    get raw() {
      return get().raw;
    },
    get conns() {
      return get().conns;
    },
    /** The file of `base`. */
    get baseFile() {
      return baseFile();
    },
    fixture,
    rowsInserted,
    copiedAside,
    waitingOn,
    waitingOnRows,
    jsonMessage,
    importThroughPipe,
    importBlockedInMove,
  };
}

/**
 * Counts every row inserted into `table` (a BEFORE trigger: also rows whose statement then fails).
 * A replacing import swaps a new table in, without the trigger: count only before the first replace.
 */
async function countInserts(raw: postgres.Sql, table: string): Promise<void> {
  await raw`create sequence wcm_test_inserted`;
  await raw`create function wcm_test_count_insert() returns trigger language plpgsql as
    $$ begin perform nextval('wcm_test_inserted'); return new; end $$`;
  await raw`create trigger wcm_test_count_insert before insert on ${raw(table)}
    for each row execute function wcm_test_count_insert()`;
}
