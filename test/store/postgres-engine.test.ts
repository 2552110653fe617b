/*
 * What the PostgreSQL engine (src/store/postgres) promises beyond the interface's conformance
 * suite: processes that hold nothing, started together; a paused writer that blocks only its own
 * rows for a bounded time; an unreachable database as StoreUnavailableError; and PgBouncer in
 * transaction mode in front of it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConflictError, type StoreEngine } from '../../src/store/engine/interface.js';
import { StoreUnavailableError } from '../../src/store/engine/interface.js';
import { PostgresEngine } from '../../src/store/postgres/engine.js';
import postgres from 'postgres';
import { threadFilterPartition } from '../../src/store/indexes.js';
import type { ThreadRecord, TokenRecord } from '../../src/store/records.js';
import { delayProxy } from '../support/delay-proxy.js';
import { startBouncer, type Bouncer } from '../support/pgbouncer.js';
import { freshDatabase, type TestDatabase } from '../support/postgres.js';
import { listing, STORE_TEST_WS } from '../support/store.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await freshDatabase();
});
afterAll(async () => {
  await db?.drop();
});
const opened: StoreEngine[] = [];
afterEach(async () => {
  for (const e of opened.splice(0)) await e.close().catch(() => undefined);
});
const schemaUrl = (base = db.url, extra = '') => `${base}?schema=t_${randomBytes(6).toString('hex')}${extra}`;
const token = (name: string): TokenRecord => ({
  id: `tok_${name}`,
  token_sha256: name.padStart(64, 'a'),
  user_id: 'u1',
  name,
  abilities: [],
  expires_at: null,
  revoked_at: null,
});
const open = async (url: string, options?: Parameters<typeof PostgresEngine.open>[1]) => {
  const e = await PostgresEngine.open(url, options);
  opened.push(e);
  return e;
};

/** A delay proxy in front of the test database, and the database's URL through it. */
async function proxied(minMs: number, maxMs: number) {
  const server = new URL(db.url);
  const proxy = await delayProxy({ host: server.hostname, port: Number(server.port || 5432) }, minMs, maxMs);
  const through = new URL(db.url);
  through.hostname = '127.0.0.1';
  through.port = String(proxy.port);
  return { proxy, through };
}

describe('the PostgreSQL engine', () => {
  it('two processes starting at once on an empty schema both serve, and a seed created by both is there once', async () => {
    const url = schemaUrl();
    const [a, b] = await Promise.all([open(url), open(url)]);
    const seed = (e: StoreEngine) =>
      e.write(async (tx) => {
        for (let i = 1; i <= 5; i++) await tx.create('listings', listing(i));
        return 'seeded';
      });
    const results = await Promise.allSettled([seed(a), seed(b)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(ConflictError);
    for (const e of [a, b]) expect(await e.read((tx) => tx.count('listings'))).toBe(5);
  });

  it('a writer paused while it holds a row blocks no other row, and that row only until its idle timeout', async () => {
    const url = schemaUrl();
    const paused = await open(url, { idleInTransactionMs: 400 });
    const other = await open(url);
    await other.write(async (tx) => {
      await tx.put('listings', listing(1));
      await tx.put('listings', listing(2));
    });
    let holding!: () => void;
    const held = new Promise<void>((r) => (holding = r));
    const stuck = paused.write(async (tx) => {
      await tx.get('listings', listing(1).id);
      holding();
      // A process stopped mid-transaction: it never comes back to commit.
      await new Promise((r) => setTimeout(r, 3000));
      await tx.put('listings', { ...listing(1), title: 'late' });
    });
    stuck.catch(() => undefined);
    await held;
    let t = Date.now();
    await other.write((tx) => tx.put('listings', { ...listing(2), title: 'free' }));
    expect(Date.now() - t).toBeLessThan(300);
    t = Date.now();
    await other.write(async (tx) => {
      const l = await tx.get('listings', listing(1).id);
      await tx.put('listings', { ...l!, title: 'after the timeout' });
    });
    expect(Date.now() - t).toBeLessThan(2500);
    await expect(stuck).rejects.toThrow();
    expect((await other.read((tx) => tx.get('listings', listing(1).id)))!.title).toBe('after the timeout');
  });

  it('with 1-10 ms added to the database and writes under way, B never misses what A acknowledged', async () => {
    const { proxy, through } = await proxied(1, 10);
    try {
      // The proxy forwards each connection as it is (no pooling), so prepared statements are safe
      // through it; said in the URL, as a direct connection would have them.
      const url = schemaUrl(through.href, '&prepare=true');
      const [a, b] = [await open(url, { max: 4 }), await open(url, { max: 4 })];
      // Load beside the checks: both processes keep writing other records.
      let busy = true;
      const noise = [a, b].map(async (e, n) => {
        for (let i = 0; busy; i++) await e.write((tx) => tx.put('settings', { id: `noise-${n}-${i % 5}`, value: i }));
      });
      let stale = 0;
      const rounds = 60;
      await Promise.all(
        Array.from({ length: 3 }, async (_, w) => {
          for (let i = 0; i < rounds / 3; i++) {
            const id = `seen-${w}-${i}`;
            await a.write((tx) => tx.put('settings', { id, value: i }));
            // Acknowledged by A: B's next read must see it.
            if ((await b.read((tx) => tx.get('settings', id)))?.value !== i) stale++;
          }
        }),
      );
      busy = false;
      await Promise.all(noise);
      expect(stale).toBe(0);
      expect(await b.read((tx) => tx.count('settings'))).toBeGreaterThanOrEqual(rounds);
    } finally {
      await Promise.all(opened.splice(0).map((e) => e.close().catch(() => undefined)));
      await proxy.close();
    }
  });

  it('a transaction whose connection drops in the middle fails, the process stays up, and the next write goes through', async () => {
    const { proxy, through } = await proxied(0, 0);
    try {
      const e = await open(schemaUrl(through.href), { max: 2 });
      await e.write((tx) => tx.put('settings', { id: 'before', value: 1 }));
      // The drop comes between two statements: the engine's ROLLBACK then goes to a closed socket,
      // which postgres.js 3.4 answered with an uncaught TypeError that ended the process.
      const dropped = e.write(async (tx) => {
        await tx.get('settings', 'before');
        proxy.cut();
        await new Promise((r) => setTimeout(r, 20));
        return tx.get('settings', 'before');
      });
      const settled = await dropped.then(
        () => 'kept',
        (err: unknown) => err,
      );
      // Either the engine's retry ran it again on a new connection, or it failed as unavailable.
      if (settled !== 'kept') expect(settled).toBeInstanceOf(StoreUnavailableError);
      await e.write((tx) => tx.put('settings', { id: 'after', value: 2 }));
      expect((await e.read((tx) => tx.get('settings', 'after')))?.value).toBe(2);
    } finally {
      await Promise.all(opened.splice(0).map((x) => x.close().catch(() => undefined)));
      await proxy.close();
    }
  });

  it('now() is the database clock: a process whose clock is an hour ahead reads the same time as the others', async () => {
    const url = schemaUrl();
    const [a, skewed] = [await open(url), await open(url)];
    const real = Date.now;
    const ahead = vi.spyOn(Date, 'now').mockImplementation(() => real() + 3_600_000);
    try {
      const [ta, tb] = await Promise.all([a.read((tx) => tx.now()), skewed.write((tx) => tx.now())]);
      expect(Math.abs(ta - tb)).toBeLessThan(1000);
      expect(Math.abs(tb - real())).toBeLessThan(1000);
    } finally {
      ahead.mockRestore();
    }
  });

  it('a load of 20,000 records while another process reads and writes: each read sees the old records or the new, never a mix; every write succeeds, and none waits for the whole load', async () => {
    const url = schemaUrl();
    // The other process prepares its statements (the default): they run on across the swap.
    const [loader, other] = [await open(url, { max: 4 }), await open(url, { max: 4 })];
    const N = 20_000;
    const generation = (title: string, n: number, sha: string) => [
      ...Array.from({ length: n }, (_, i) => ['listings', { ...listing(i + 1), title }] as const),
      ['tokens', { ...token(title), token_sha256: sha }] as const,
    ];
    const SHA = 'c'.repeat(64);
    await loader.load(['listings', 'tokens'], generation('old', N, SHA));
    let loading = true;
    const mixed: string[] = [];
    const seen = new Set<string>();
    const reading = (async () => {
      for (let round = 0; loading || round < 2; round++) {
        const view = await other.read(async (tx) => {
          // A collection the load does not replace first: the read's snapshot begins before it.
          await tx.get('settings', 'none');
          const count = await tx.count('listings', 'listingsByWorkspace', STORE_TEST_WS);
          const page = await tx.page('listings', 'listingsByWorkspace', { partition: STORE_TEST_WS, limit: 50 });
          const last = await tx.get('listings', listing(N).id);
          const tok = await tx.find('tokens', 'tokensBySha256', SHA);
          return { count, titles: page.items.map((l) => l.title), last: last?.title, tok: tok?.id };
        });
        const gen = view.count === N ? 'old' : view.count === N + 1 ? 'new' : `count ${view.count}`;
        seen.add(gen);
        const same = [...view.titles, view.last, view.tok?.slice('tok_'.length)].every((t) => t === gen);
        if (!same) mixed.push(JSON.stringify({ gen, ...view, titles: [...new Set(view.titles)] }));
      }
    })();
    const waits: number[] = [];
    const failed: unknown[] = [];
    let duringLoad = 0;
    const writing = (async () => {
      for (let i = 0; loading; i++) {
        const t = Date.now();
        await other
          .write(async (tx) => {
            // A row of a replaced collection read for update, and writes to a kept and a replaced one.
            await tx.get('listings', listing(1).id);
            await tx.put('settings', { id: `w-${i % 10}`, value: i });
            await tx.put('listings', { ...listing(N + 10 + i), workspace_id: 'elsewhere' });
          })
          .catch((err) => failed.push(err));
        waits.push(Date.now() - t);
        if (loading) duringLoad++;
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const loaded = await loader
      .load(['listings', 'tokens'], generation('new', N + 1, SHA))
      .catch((err: unknown) => err)
      .finally(() => (loading = false));
    await Promise.all([reading, writing]);
    expect(loaded).toBe(true);
    expect(mixed).toEqual([]);
    expect(seen).toEqual(new Set(['old', 'new']));
    expect(failed).toEqual([]);
    expect(duringLoad).toBeGreaterThanOrEqual(3);
    // The swapped tables keep their constraints' names: a taken unique key is still a ConflictError naming its lookup.
    const taken = await other
      .write((tx) => tx.create('tokens', { ...token('again'), token_sha256: SHA }))
      .catch((e) => e);
    expect(taken).toBeInstanceOf(ConflictError);
    expect((taken as ConflictError).index).toBe('tokensBySha256');
    // The loader's own statements run on too, and a restore swaps as a load does.
    await loader.snapshots.save('new');
    await loader.load(['listings'], []);
    expect(await other.read((tx) => tx.count('listings'))).toBe(0);
    expect(await loader.snapshots.restore('new')).toBe(true);
    expect(await other.read((tx) => tx.count('listings', 'listingsByWorkspace', STORE_TEST_WS))).toBe(N + 1);
    expect((await other.read((tx) => tx.find('tokens', 'tokensBySha256', SHA)))?.id).toBe('tok_new');
  }, 120_000);

  it("a schema of version 1 gets its search text: the threads and a named snapshot's copy are found by search, and keep their index", async () => {
    const url = schemaUrl();
    const schema = new URL(url).searchParams.get('schema') as string;
    const thread = (n: number, subject: string): ThreadRecord => ({
      id: `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`,
      workspace_id: STORE_TEST_WS,
      subject,
      status: 'open',
      unread: false,
      starred: false,
      contact: { id: `c${n}`, name: null, email: null, phone: null },
      channels: ['email'],
      message_count: 1,
      last_message_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      last_message_body: null,
    });
    const a = await open(url);
    // More than one batch of the migration's (a thousand rows a statement).
    await a.load(
      ['threads'],
      Array.from(
        { length: 1500 },
        (_, k) => ['threads', thread(k + 1, (k + 1) % 500 ? `Hours ${k + 1}` : `Straße ${k + 1}`)] as const,
      ),
    );
    await a.snapshots.save('before');
    await a.close();
    // Back to version 1: no search text, no search index.
    const sql = postgres(db.url, { max: 1, onnotice: () => undefined });
    try {
      await sql.unsafe(`drop index if exists ${schema}.wcm_c_threads_search`);
      await sql.unsafe(`alter table ${schema}.wcm_c_threads drop column search_text`);
      await sql.unsafe(`alter table ${schema}.wcm_s_threads drop column search_text`);
      await sql.unsafe(`update ${schema}.wcm_engine_migrations set version = 1`);
    } finally {
      await sql.end();
    }
    const b = await open(url);
    const partition = threadFilterPartition(STORE_TEST_WS, 'inbox', undefined);
    const found = () =>
      b.read((tx) => tx.page('threads', 'threadsByFilter', { partition, limit: 10, search: 'STRASSE' }));
    // `ß` upper-cases to `SS` but `SS` lower-cases to `ss`: JavaScript's case mapping, not a folding.
    expect((await found()).items).toEqual([]);
    const street = () =>
      b.read((tx) => tx.page('threads', 'threadsByFilter', { partition, limit: 10, search: 'STRAßE' }));
    expect((await street()).items.map((t) => t.subject)).toEqual(['Straße 1500', 'Straße 1000', 'Straße 500']);
    await b.write((tx) => tx.put('threads', thread(1500, 'Hours again')));
    expect((await street()).items.length).toBe(2);
    expect(await b.snapshots.restore('before')).toBe(true);
    expect((await street()).items.length).toBe(3);
    const check = postgres(db.url, { max: 1, onnotice: () => undefined });
    try {
      const [row] = await check.unsafe(
        `select to_regclass($1) as t, (select max(version) from ${schema}.wcm_engine_migrations) as v`,
        [`${schema}.wcm_c_threads_search`],
      );
      expect(row.t).not.toBeNull();
      expect(row.v).toBe(2);
    } finally {
      await check.end();
    }
  });

  it('a database it cannot reach is a StoreUnavailableError', async () => {
    const u = new URL(db.url);
    u.port = '1';
    await expect(PostgresEngine.open(u.href)).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('the PostgreSQL engine behind PgBouncer in transaction mode', () => {
  let bouncer: Bouncer;
  beforeAll(async () => {
    bouncer = await startBouncer(3);
  });
  afterAll(async () => {
    await bouncer?.stop();
  });

  it('without `prepare` in the URL, statements are prepared straight to PostgreSQL and not through the pooler, where every acknowledged write is kept', async () => {
    const direct = await open(schemaUrl());
    expect([direct.prepare, direct.prepareDetected]).toEqual([true, true]);
    const url = schemaUrl(bouncer.url(db.name));
    const pooled = [await open(url, { max: 4 }), await open(url, { max: 4 })];
    expect(pooled.map((e) => [e.prepare, e.prepareDetected])).toEqual([
      [false, true],
      [false, true],
    ]);
    const forced = await open(`${url}&prepare=true`, { max: 1 });
    expect([forced.prepare, forced.prepareDetected]).toEqual([true, false]);
    // With statements prepared, some of these acknowledged writes were lost behind PgBouncer 1.18.
    const acknowledged: number[] = [];
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        await pooled[i % 2].write(async (tx) => {
          await tx.get('listings', listing(i + 1).id);
          await tx.create('listings', listing(i + 1));
        });
        acknowledged.push(i + 1);
      }),
    );
    expect(acknowledged).toHaveLength(60);
    expect(await pooled[0].read((tx) => tx.count('listings'))).toBe(60);
  });

  it('a `prepare` other than true or false is refused, naming it', async () => {
    await expect(PostgresEngine.open(`${db.url}?prepare=yes`)).rejects.toThrow(
      '`prepare` in the store URL must be true or false; received `yes`.',
    );
  });

  it('what A writes B reads, each schema keeps its own records, and concurrent read-then-writes lose nothing', async () => {
    const through = bouncer.url(db.name);
    const url = schemaUrl(through, '&prepare=false');
    const [a, b] = [await open(url, { max: 4 }), await open(url, { max: 4 })];
    const elsewhere = await open(schemaUrl(through, '&prepare=false'), { max: 2 });
    for (let i = 1; i <= 20; i++) {
      await a.write((tx) => tx.put('listings', listing(i)));
      expect((await b.read((tx) => tx.get('listings', listing(i).id)))?.title).toBe(`L${i}`);
    }
    expect(await elsewhere.read((tx) => tx.count('listings'))).toBe(0);
    const page = await b.read((tx) =>
      tx.page('listings', 'listingsByWorkspace', { partition: STORE_TEST_WS, limit: 3 }),
    );
    expect(page.items.map((l) => l.title)).toEqual(['L20', 'L19', 'L18']);
    // Read-then-write from both processes at once, through the pooler's few server connections.
    await a.write((tx) => tx.put('settings', { id: 'n', value: 0 }));
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).write(async (tx) => {
          const n = await tx.get('settings', 'n');
          await tx.put('settings', { id: 'n', value: (n!.value as number) + 1 });
        }),
      ),
    );
    expect((await a.read((tx) => tx.get('settings', 'n')))!.value).toBe(10);
  });
});
