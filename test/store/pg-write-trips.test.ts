// A durable write on PostgreSQL (src/store/pg/log.ts) costs few round trips: one statement when
// nothing moved (src/store/pg/one-trip.ts); else the lock, the declared reads and the catch-up go
// out together, then the journal row and the table writes with COMMIT right behind them. Counted through a TCP relay between the store and the test's PostgreSQL.
import net from 'node:net';
import postgres from 'postgres';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/pg/migrations.js';
import { keyRows, recordRow } from '../../src/store/pg/records.js';
import type { ListingRecord } from '../../src/store/records.js';
import { Store } from '../../src/store/store.js';
import { eng } from '../support/engagement.js';
import { freshDatabase } from '../support/postgres.js';

const listing = (n: number, title = `Listing ${n}`): ListingRecord => ({
  id: `71000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  workspace_id: eng.wsA,
  title,
  template_slug: 'basic',
  items: [{ title: 'one' }],
  button_id: null,
  created_at: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
});

/**
 * Counts the messages of `kinds` in a PostgreSQL protocol stream (a type byte, then a length that
 * counts itself), fed in chunks as they arrive; `untyped`: the stream starts with one message
 * without a type byte (the client's startup).
 */
function messages(kinds: string, untyped: boolean) {
  let buf = Buffer.alloc(0);
  let first = untyped;
  return (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    let n = 0;
    for (;;) {
      const head = first ? 0 : 1;
      if (buf.length < head + 4) return n;
      const end = head + buf.readUInt32BE(head);
      if (buf.length < end) return n;
      if (first || kinds.includes(String.fromCharCode(buf[0]))) n++;
      first = false;
      buf = buf.subarray(end);
    }
  };
}

/**
 * A relay to `target` that counts round trips: each time a client sends while none of its requests
 * is unanswered (requests end in Sync or are simple queries; each is answered by ReadyForQuery);
 * and the statements it prepares (Parse messages; the startup message counts as one).
 */
async function relay(target: URL) {
  let trips = 0;
  let parsed = 0;
  const server = net.createServer((client) => {
    const up = net.connect(Number(target.port), target.hostname);
    const asked = messages('SQ', true);
    const parse = messages('P', true);
    const answered = messages('Z', false);
    let waiting = 0;
    client.on('data', (d) => {
      if (waiting === 0) trips++;
      waiting += asked(d);
      parsed += parse(d);
      up.write(d);
    });
    up.on('data', (d) => {
      waiting -= answered(d);
      client.write(d);
    });
    client.on('close', () => up.destroy());
    up.on('close', () => client.destroy());
    client.on('error', () => up.destroy());
    up.on('error', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return { url: url.href, trips: () => trips, parsed: () => parsed, close: () => new Promise((r) => server.close(r)) };
}

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c().catch(() => undefined);
});

describe('a write on PostgreSQL', () => {
  it('costs one round trip when nothing moved: one statement claims the lock and writes; a batch of another size prepares no statement again', async () => {
    const db = await freshDatabase();
    const r = await relay(new URL(db.url));
    closing.push(r.close);
    const store = await Store.openShared(r.url);
    closing.push(() => store.close());
    // The first write prepares its statement (a round trip, once per connection).
    for (let i = 0; i < 3; i++) await store.transact((tx) => tx.put('listings', listing(i)));
    const before = r.trips();
    await store.transact((tx) => tx.put('listings', listing(3)));
    // Was three (BEGIN; lock and catch-up; writes and COMMIT): the claim and the writes are one statement.
    expect(r.trips() - before).toBe(1);
    expect((await store.records.get('listings', listing(3).id))?.title).toBe('Listing 3');
    // A batch of another size uses the same statement (column arrays), prepared already: none
    // is parsed again (a new statement costs a round trip to describe it, and holds back the rest).
    const parsed = r.parsed();
    await Promise.all([4, 5, 6, 7].map((i) => store.transact((tx) => tx.put('listings', listing(i)))));
    expect(r.parsed() - parsed).toBe(0);
    expect(await store.records.count('listingsByWorkspace', eng.wsA)).toBe(8);
  });

  it("a sync while a batch of ours is being written waits for its commit; a batch behind another process's write takes the usual path", async () => {
    const db = await freshDatabase();
    const r = await relay(new URL(db.url));
    closing.push(r.close);
    const a = await Store.openShared(r.url);
    closing.push(() => a.close());
    const b = await Store.openShared(db.url);
    closing.push(() => b.close());
    const other = (n: number) => ({ id: `usr_other${n}`, name: `Other ${n}`, email: `other${n}@example.com` });
    // Both paths once, so that every statement is prepared before counting.
    for (let i = 0; i < 2; i++) await a.transact((tx) => tx.put('listings', listing(i)));
    await b.transact((tx) => tx.put('users', other(0)));
    await a.transact((tx) => tx.put('listings', listing(2)));
    await a.transact((tx) => tx.put('listings', listing(3)));
    let before = r.trips();
    await Promise.all([a.transact((tx) => tx.put('listings', listing(4))), a.sync(), a.sync()]);
    expect(r.trips() - before).toBe(1);
    // Another process wrote: the one statement is refused (the journal moved past us); the batch
    // runs again the usual way (BEGIN; lock and catch-up; writes and COMMIT), seeing that write.
    await b.transact((tx) => tx.put('users', other(1)));
    before = r.trips();
    const written = a.transact((tx) => tx.put('listings', listing(5)));
    // Once the lock is answered (the writes go out: the fourth round trip), a sync asks nothing.
    while (r.trips() - before < 4) await new Promise((w) => setImmediate(w));
    await Promise.all([written, a.sync(), a.sync()]);
    expect(r.trips() - before).toBe(4);
    expect(a.get('users', 'usr_other1')?.name).toBe('Other 1');
    expect((await b.records.get('listings', listing(5).id))?.title).toBe('Listing 5');
  });

  it('the writes of requests that a commit released share the next batch', async () => {
    const db = await freshDatabase();
    const r = await relay(new URL(db.url));
    closing.push(r.close);
    const a = await Store.openShared(r.url);
    closing.push(() => a.close());
    for (let i = 0; i < 3; i++) await a.transact((tx) => tx.put('listings', listing(i)));
    const before = r.trips();
    // As requests arriving during a write: each syncs (waiting for that write's commit), then writes.
    const first = a.transact((tx) => tx.put('listings', listing(3)));
    while (r.trips() === before) await new Promise((w) => setImmediate(w));
    const requests = [4, 5, 6, 7].map(async (i) => {
      await a.sync();
      await a.transact((tx) => tx.put('listings', listing(i)));
    });
    await Promise.all([first, ...requests]);
    // Was three: the first request released wrote alone, the other three in the batch after it.
    expect(r.trips() - before).toBe(2);
    expect(await a.records.count('listingsByWorkspace', eng.wsA)).toBe(8);
  });

  it('the one statement runs on its generic plan, planned once: not planned again for every batch', async () => {
    const db = await freshDatabase();
    const a = await Store.openShared(db.url);
    closing.push(() => a.close());
    for (let i = 0; i < 8; i++) await a.transact((tx) => tx.put('listings', listing(i)));
    // The statement is prepared on the writer's one connection, where this query runs too.
    const plans = await a.shared!.writer<Array<{ generic: number; custom: number }>>`
      select generic_plans::int as generic, custom_plans::int as custom
      from pg_prepared_statements
      where statement like '%wcm_claim_writes(%' and statement not like '%pg_prepared_statements%'`;
    expect(plans).toEqual([{ generic: 8, custom: 0 }]);
  });

  it('in one statement, a record written again keeps exactly its keys: the same key, a moved key, a delete', async () => {
    const db = await freshDatabase();
    const r = await relay(new URL(db.url));
    closing.push(r.close);
    const a = await Store.openShared(r.url);
    closing.push(() => a.close());
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    closing.push(() => admin.end());
    const keysOf = async () =>
      (
        await admin<Array<{ ix: string; part: string; k: Buffer; id: string }>>`
        select ix, part, k, id from wcm_record_keys order by ix, part, k`
      ).map((x) => ({ ...x, k: x.k.toString('hex') }));
    const expected = (...recs: ListingRecord[]) =>
      recs.flatMap((rec) => keyRows('listings', rec)).map((x) => ({ ...x, k: x.k.toString('hex') }));
    const [one, two] = [listing(1), listing(2)];
    for (const rec of [one, two, listing(3)]) await a.transact((tx) => tx.put('listings', rec));
    const before = r.trips();
    // The same sort key (a title changed): its key row is deleted and inserted in one statement.
    const renamed = { ...one, title: 'Renamed' };
    await a.transact((tx) => tx.put('listings', renamed));
    // A moved key: the old row goes, the new one comes.
    const moved = { ...two, created_at: new Date(Date.UTC(2027, 0, 1)).toISOString() };
    await a.transact((tx) => tx.put('listings', moved));
    await a.transact((tx) => tx.delete('listings', listing(3).id));
    expect(r.trips() - before).toBe(3);
    expect(await keysOf()).toEqual(expected(renamed, moved).sort((x, y) => (x.k < y.k ? -1 : 1)));
    expect((await admin`select id from wcm_records order by id`).map((x) => x.id)).toEqual([one.id, two.id]);
    const b = await Store.openShared(db.url);
    closing.push(() => b.close());
    const page = await b.records.page('listingsByWorkspace', eng.wsA, { limit: 10 });
    expect(page.items).toEqual([moved, renamed]);
  });

  it("a write behind another process's bulk load is refused the one statement (the base moved) and lands on the loaded data", async () => {
    const db = await freshDatabase();
    const a = await Store.openShared(db.url);
    closing.push(() => a.close());
    const b = await Store.openShared(db.url);
    closing.push(() => b.close());
    await b.transact((tx) => tx.put('users', { id: 'usr_old', name: 'Old', email: 'old@example.com' }));
    // The load empties the journal: only the base's seq says that b is behind.
    await a.bulk((tx) => {
      tx.delete('users', 'usr_old');
      tx.put('users', { id: 'usr_loaded', name: 'Loaded', email: 'loaded@example.com' });
    });
    await b.transact((tx) => tx.put('listings', listing(1)));
    expect(b.get('users', 'usr_old')).toBeUndefined();
    expect(b.get('users', 'usr_loaded')?.name).toBe('Loaded');
    const c = await Store.openShared(db.url);
    closing.push(() => c.close());
    expect((await c.records.get('listings', listing(1).id))?.title).toBe('Listing 1');
    expect(c.get('users', 'usr_loaded')?.name).toBe('Loaded');
  });

  it('two processes writing records at once, each refused whenever the other wrote first, lose nothing', async () => {
    const db = await freshDatabase();
    const a = await Store.openShared(db.url);
    closing.push(() => a.close());
    const b = await Store.openShared(db.url);
    closing.push(() => b.close());
    const all = Array.from({ length: 60 }, (_, i) => listing(100 + i));
    await Promise.all(all.map((rec, i) => (i % 2 ? a : b).transact((tx) => tx.put('listings', rec))));
    // Each renames the other's half: a record written again from the other process.
    await Promise.all(
      all.map((rec, i) => (i % 2 ? b : a).transact((tx) => tx.put('listings', { ...rec, title: `Again ${i}` }))),
    );
    const c = await Store.openShared(db.url);
    closing.push(() => c.close());
    const page = await c.records.page('listingsByWorkspace', eng.wsA, { limit: 100 });
    expect(page.items.map((x) => x.title).sort()).toEqual(all.map((_, i) => `Again ${i}`).sort());
    expect(await c.records.count('listingsByWorkspace', eng.wsA)).toBe(60);
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    closing.push(() => admin.end());
    // One journal row per write, numbered without a gap.
    expect(await admin`select count(*)::int as n, max(seq)::int as top from wcm_journal`).toEqual([
      { n: 120, top: 120 },
    ]);
  });

  it('while another process holds the write lock, a write waits for it and a sync does not', async () => {
    const db = await freshDatabase();
    const a = await Store.openShared(db.url);
    closing.push(() => a.close());
    await a.transact((tx) => tx.put('listings', listing(1)));
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    closing.push(() => admin.end());
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // As an import holding the lock a while (the key is batch.ts's WRITE_LOCK).
    const holder = admin.begin(async (sql) => {
      await sql`select pg_advisory_xact_lock(${0x77636d}, hashtext(current_schema()))`;
      locked();
      await held;
    });
    await isLocked;
    let done = false;
    const user = { id: 'usr_waited', name: 'Waited', email: 'waited@example.com' };
    const written = a
      .transact((tx) => {
        tx.put('users', user);
        tx.put('listings', listing(2));
      })
      .then(() => (done = true));
    try {
      await new Promise((w) => setTimeout(w, 300));
      expect(done).toBe(false);
      // The one statement was refused and its writes undone: a sync neither waits nor sees them.
      await a.sync();
      expect(a.get('users', user.id)).toBeUndefined();
    } finally {
      release();
    }
    await holder;
    await written;
    expect(a.get('users', user.id)?.name).toBe('Waited');
    expect((await a.records.get('listings', listing(2).id))?.title).toBe('Listing 2');
  });

  it('keeps every character of a record and its key through the column arrays, and a record without an index', async () => {
    const db = await freshDatabase();
    const a = await Store.openShared(db.url);
    closing.push(() => a.close());
    const odd = listing(5, 'quote " backslash \\ tab \t line \n braces {a,b} NULL ü 😀');
    const event = { id: 'pe_arrays', kind: 'paid', note: 'no index: no key' };
    await a.transact((tx) => {
      tx.put('listings', odd);
      tx.put('payment_events', event as never);
    });
    const b = await Store.openShared(db.url);
    closing.push(() => b.close());
    expect(await b.records.get('listings', odd.id)).toEqual(odd);
    expect(await b.records.get('payment_events', event.id)).toEqual(event);
    const page = await b.records.page('listingsByWorkspace', eng.wsA, { limit: 10 });
    expect(page.items.map((r) => r.id)).toEqual([odd.id]);
  });

  it('a statement failing behind the others fails the batch: nothing of it is committed, the next write is', async () => {
    const db = await freshDatabase();
    const a = await Store.openShared(db.url);
    closing.push(() => a.close());
    const admin = postgres(db.url, { max: 1, onnotice: () => {} });
    closing.push(() => admin.end());
    await a.transact((tx) => tx.put('listings', listing(1)));
    // The record's insert is sent after the journal row's, without waiting for it.
    await admin`alter table wcm_records add constraint no_boom check (body not like '%BOOM%')`;
    const [journal] = await admin<Array<{ n: number }>>`select count(*)::int as n from wcm_journal`;
    await expect(
      a.transact((tx) => {
        tx.put('users', { id: 'usr_same_batch', name: 'Same', email: 'same@example.com' });
        tx.put('listings', listing(2, 'BOOM'));
      }),
    ).rejects.toThrow(/no_boom/);
    expect((await admin<Array<{ n: number }>>`select count(*)::int as n from wcm_journal`)[0].n).toBe(journal.n);
    expect(await admin`select id from wcm_records where id = ${listing(2).id}`).toEqual([]);
    const b = await Store.openShared(db.url);
    closing.push(() => b.close());
    expect(b.get('users', 'usr_same_batch')).toBeUndefined();
    await a.sync();
    expect(a.get('users', 'usr_same_batch')).toBeUndefined();
    await a.transact((tx) => tx.put('listings', listing(3)));
    await b.sync();
    expect((await b.records.get('listings', listing(3).id))?.title).toBe('Listing 3');
  });
});

describe('the schema at version 7', () => {
  it('opens a version 6 database, drops the export-order index its writes paid for, and exports in the same order', async () => {
    const db = await freshDatabase();
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    closing.push(() => sql.end());
    // The database as a wcm at version 6 left it, listings in their table.
    await sql`create table wcm_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`;
    for (const m of MIGRATIONS.filter((m) => m.version <= 6)) {
      await sql.unsafe(m.ddl);
      await sql`insert into wcm_migrations (version, name) values (${m.version}, ${m.name})`;
    }
    // Ties on created_at: the key's id decides.
    const old = [3, 1, 4, 1.5, 9, 2.6].map((t, i) => ({
      ...listing(10 + i),
      created_at: listing(Math.floor(t)).created_at,
    }));
    for (const rec of old) {
      const { collection, id, k, body } = recordRow('listings', rec);
      await sql`insert into wcm_records (collection, id, k, body) values (${collection}, ${id}, ${k}, ${body})`;
      for (const x of keyRows('listings', rec))
        await sql`insert into wcm_record_keys (ix, part, k, id) values (${x.ix}, ${x.part}, ${x.k}, ${x.id})`;
    }
    const store = await Store.openShared(db.url);
    closing.push(() => store.close());
    expect((await sql`select max(version)::int as v from wcm_migrations`)[0].v).toBe(MIGRATIONS.at(-1)!.version);
    expect(await sql`select indexname from pg_indexes where tablename = 'wcm_records' order by 1`).toEqual([
      { indexname: 'wcm_records_pkey' },
    ]);
    await store.transact((tx) => tx.put('listings', listing(20)));
    const all = [...old, listing(20)];
    const newestFirst = all.sort((x, y) =>
      x.created_at === y.created_at ? (x.id < y.id ? 1 : -1) : x.created_at < y.created_at ? 1 : -1,
    );
    const streamed: ListingRecord[] = [];
    for await (const r of store.records.stream('listings')) streamed.push(r as ListingRecord);
    expect(streamed.map((r) => r.id)).toEqual(newestFirst.map((r) => r.id));
  });
});

describe('the schema at version 8', () => {
  it('upgrades a version 7 database holding records, and writes over them in one statement', async () => {
    const db = await freshDatabase();
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    closing.push(() => sql.end());
    await sql`create table wcm_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`;
    for (const m of MIGRATIONS.filter((m) => m.version <= 7)) {
      await sql.unsafe(m.ddl);
      await sql`insert into wcm_migrations (version, name) values (${m.version}, ${m.name})`;
    }
    const old = [listing(1), listing(2)];
    for (const rec of old) {
      const { collection, id, k, body } = recordRow('listings', rec);
      await sql`insert into wcm_records (collection, id, k, body) values (${collection}, ${id}, ${k}, ${body})`;
      for (const x of keyRows('listings', rec))
        await sql`insert into wcm_record_keys (ix, part, k, id) values (${x.ix}, ${x.part}, ${x.k}, ${x.id})`;
    }
    const r = await relay(new URL(db.url));
    closing.push(r.close);
    const store = await Store.openShared(r.url);
    closing.push(() => store.close());
    expect((await sql`select max(version)::int as v from wcm_migrations`)[0].v).toBe(8);
    // The first write prepares its statement; the second is one round trip.
    await store.transact((tx) => tx.put('listings', listing(3)));
    const before = r.trips();
    const moved = { ...old[0], created_at: listing(9).created_at };
    await store.transact((tx) => tx.put('listings', moved));
    expect(r.trips() - before).toBe(1);
    const page = await store.records.page('listingsByWorkspace', eng.wsA, { limit: 10 });
    expect(page.items.map((x) => x.id)).toEqual([moved.id, listing(3).id, old[1].id]);
    expect(await sql`select count(*)::int as n from wcm_record_keys`).toEqual([{ n: 3 }]);
  });
});
