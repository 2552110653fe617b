// `wcm local import --store URL` streams a fixture's threads into PostgreSQL in COPY batches inside
// one transaction (src/store/seed.ts importShared, src/store/pg/thread-import.ts): memory holds a
// batch, not the fixture. All or nothing still: a bad record in the last batch, after the earlier
// batches were written, leaves the database as it was, with the message the JSON store gives; and
// another process sees none of an import or all of it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FixtureError } from '../../src/store/fixture.js';
import { importShared, seedStore } from '../../src/store/seed.js';
import { Store } from '../../src/store/store.js';
import type { FullThread } from '../../src/store/threads.js';
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

/** Rows ever inserted into wcm_threads, rolled back or not (the statistics collector's count). */
async function rowsInserted(atLeast: number): Promise<number> {
  let n = 0;
  for (let i = 0; i < 100; i++) {
    const [r] =
      await raw`select coalesce(n_tup_ins, 0)::int as n from pg_stat_user_tables where relname = 'wcm_threads'`;
    n = r?.n ?? 0;
    if (n >= atLeast) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return n;
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
    await new Promise((r) => setTimeout(r, 5));
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
    // The two whole batches were written (and rolled back) before the file's end, where the
    // reference is checked; the rest never was.
    expect(await rowsInserted(2 * BATCH)).toBe(2 * BATCH);
    expect([...seen]).toEqual([0]);
    expect(await pg.get('workspaces', WS)).toBeUndefined();
    expect(await other.threads.size()).toBe(0);
  });

  it('writes every thread, and another process sees none of them or all of them', async () => {
    const before = await rowsInserted(0);
    const { seen, result } = await watch(() => importShared(pg, [workspaceFile, all()], { batchRows: BATCH }));
    expect(result).toEqual({ workspaces: 2, threads: N });
    expect([...seen].every((n) => n === 0 || n === N)).toBe(true);
    expect(await rowsInserted(before + N)).toBe(before + N);
    await other.sync();
    expect(await other.threads.size()).toBe(N);
    expect(other.get('workspaces', WS)).toBeDefined();
    for (const i of [0, BATCH - 1, BATCH, 2 * BATCH + 7, N - 1])
      expect(await readFullThread(other, THREADS[i].id)).toEqual(THREADS[i]);
  });

  it('refuses ids the table holds already, found in the last batch, with the JSON store’s message', async () => {
    const before = await rowsInserted(0);
    const fresh = Array.from({ length: N }, (_, i) => thread(N + i));
    // The last batch holds one id imported above; the two batches before it are written first.
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
    expect(await rowsInserted(before + 2 * BATCH)).toBe(before + 2 * BATCH);
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
