// A durable write on PostgreSQL (src/store/pg/log.ts) costs few round trips: the lock, the declared
// reads and the catch-up go out together, then the journal row and the table writes with COMMIT
// right behind them. Counted through a TCP relay between the store and the test's PostgreSQL.
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
  it('costs three round trips: BEGIN; lock, reads and catch-up; writes and COMMIT; a batch of another size prepares no statement again', async () => {
    const db = await freshDatabase();
    const r = await relay(new URL(db.url));
    closing.push(r.close);
    const store = await Store.openShared(r.url);
    closing.push(() => store.close());
    // The first write prepares its statements (a round trip each, once per connection).
    for (let i = 0; i < 3; i++) await store.transact((tx) => tx.put('listings', listing(i)));
    const before = r.trips();
    await store.transact((tx) => tx.put('listings', listing(3)));
    expect(r.trips() - before).toBe(3);
    expect((await store.records.get('listings', listing(3).id))?.title).toBe('Listing 3');
    // A batch of another size uses the same statements (column arrays), prepared already: none
    // is parsed again (a new statement costs a round trip to describe it, and holds back the rest).
    const parsed = r.parsed();
    await Promise.all([4, 5, 6, 7].map((i) => store.transact((tx) => tx.put('listings', listing(i)))));
    expect(r.parsed() - parsed).toBe(0);
    expect(await store.records.count('listingsByWorkspace', eng.wsA)).toBe(8);
  });

  it('a sync while a batch of ours holds the write lock waits for its commit, and sees what another process committed', async () => {
    const db = await freshDatabase();
    const r = await relay(new URL(db.url));
    closing.push(r.close);
    const a = await Store.openShared(r.url);
    closing.push(() => a.close());
    const b = await Store.openShared(db.url);
    closing.push(() => b.close());
    for (let i = 0; i < 2; i++) await a.transact((tx) => tx.put('listings', listing(i)));
    await a.sync();
    await b.transact((tx) => tx.put('users', { id: 'usr_other', name: 'Other', email: 'other@example.com' }));
    const before = r.trips();
    const written = a.transact((tx) => tx.put('listings', listing(2)));
    // Once the lock is answered (the writes go out: the third round trip), a sync asks nothing.
    while (r.trips() - before < 3) await new Promise((w) => setImmediate(w));
    await Promise.all([written, a.sync(), a.sync()]);
    expect(r.trips() - before).toBe(3);
    expect(a.get('users', 'usr_other')?.name).toBe('Other');
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
    expect((await sql`select max(version)::int as v from wcm_migrations`)[0].v).toBe(7);
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
