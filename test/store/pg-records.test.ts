// The areas' records on PostgreSQL (src/store/pg/records.ts): the collections moved to their table
// are held by no process, written in the same PostgreSQL transaction as the journal row, read
// through store.records by every process, and kept by named snapshots, exports and imports.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportText, FixtureError } from '../../src/store/fixture.js';
import { pgShelf } from '../../src/store/pg/named.js';
import { COLLECTIONS, type CollectionName, type ListingRecord } from '../../src/store/records.js';
import { seedStore } from '../../src/store/seed.js';
import { Store } from '../../src/store/store.js';
import { RECORD_TABLE_COLLECTIONS } from '../../src/store/pg/records.js';
import { eng, fixture } from '../support/engagement.js';
import { freshDatabase } from '../support/postgres.js';

const listing = (n: number, ws: string = eng.wsA): ListingRecord => ({
  id: `70000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  workspace_id: ws,
  title: `Listing ${n} ü\t"q"`,
  template_slug: 'faq',
  items: [{ title: 'one', description: 'line\nbreak \\ back' }],
  button_id: null,
  created_at: new Date(Date.UTC(2026, 0, 1) + (n % 500) * 1000).toISOString(),
});
/** Past the COPY threshold (1,000 rows): the load streams them. */
const LISTINGS = Array.from({ length: 1200 }, (_, i) => listing(i));

/** The collections these tests keep in the table (ahead of TABLED, which follows their readers). */
const TABLED = new Set<CollectionName>(['bookings', 'voice_interactions', 'listings']);
const openShared = (url: string) => Store.openShared(url, TABLED);

let dir: string;
let json: Store;
let a: Store;
let b: Store;
let url: string;

const text = async (s: Store) => {
  let out = '';
  for await (const piece of exportText(s)) out += piece;
  return out;
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wcm-pg-records-'));
  const file = path.join(dir, 'fixture.json');
  writeFileSync(file, JSON.stringify({ ...fixture, listings: LISTINGS }));
  json = await Store.open(path.join(dir, 'store.json'));
  await seedStore(json, [file]);
  url = (await freshDatabase()).url;
  a = await openShared(url);
  b = await openShared(url);
  await seedStore(a, [file]);
}, 120_000);

afterAll(async () => {
  for (const s of [json, a, b]) await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('records on PostgreSQL', () => {
  it('are held by no process: synchronous reads of their collections throw, store.records reads them', async () => {
    await b.sync();
    for (const s of [a, b]) {
      for (const c of TABLED) expect(s.state.count(c)).toBe(0);
      expect(() => s.get('listings', LISTINGS[0].id)).toThrow(/listings are kept in a PostgreSQL table/);
      expect(() => s.count('bookings')).toThrow(/bookings/);
      expect(() => s.index('voiceByWorkspace')).toThrow(/voice_interactions/);
      expect(() => [...s.values('listings')]).toThrow(/listings/);
    }
    expect(await b.records.size('listings')).toBe(LISTINGS.length);
    expect(await b.records.get('listings', LISTINGS[7].id)).toEqual(LISTINGS[7]);
    expect(await b.records.count('bookingsByWorkspace', eng.wsA)).toBe(5);
    const q = { limit: 2, from: ['2025-11-02'], to: ['2025-11-04'] };
    const page = await b.records.page('bookingsByWorkspace', eng.wsA, q);
    expect(page).toEqual(await json.records.page('bookingsByWorkspace', eng.wsA, q));
    expect(page.items.map((x) => x.id)).toEqual(fixture.bookings.slice(1, 3).map((x) => x.id));
    expect(page.more).toBe(true);
  });

  it('a write on one process is read on another at its next sync, in the same order as the JSON store', async () => {
    const rec = listing(5000);
    await a.transact((tx) => tx.put('listings', rec));
    await json.transact((tx) => tx.put('listings', rec));
    await b.sync();
    expect(await b.records.get('listings', rec.id)).toEqual(rec);
    const first = async (s: Store) => (await s.records.page('listingsByWorkspace', eng.wsA, { limit: 3 })).items;
    expect(await first(b)).toEqual(await first(json));
    await a.transact((tx) => tx.delete('listings', rec.id));
    await json.transact((tx) => tx.delete('listings', rec.id));
    await b.sync();
    expect(await b.records.get('listings', rec.id)).toBeUndefined();
    expect(await first(b)).toEqual(await first(json));
  });

  it('a transaction reads what it declared (no update lost across processes); an undeclared read throws', async () => {
    const rec = { ...listing(6000), title: '0' };
    await a.transact((tx) => tx.put('listings', rec));
    const bump = (s: Store) =>
      s.transact(
        (tx) => {
          const cur = tx.get('listings', rec.id)!;
          return tx.put('listings', { ...cur, title: `${Number(cur.title) + 1}` });
        },
        [['listings', rec.id]],
      );
    // Same batch (one process) and across processes: every increment lands.
    await Promise.all([bump(a), bump(a), bump(b), bump(b), bump(a)]);
    expect((await b.records.get('listings', rec.id))!.title).toBe('5');
    // Not declared: a programming error naming the collection and id, and nothing written.
    await expect(a.transact((tx) => tx.get('listings', rec.id))).rejects.toThrow(
      `tx.get('listings', '${rec.id}'): listings are kept in PostgreSQL`,
    );
    // Its own writes it reads without declaring them; a missing declared record is undefined.
    const seen = await a.transact(
      (tx) => {
        tx.put('listings', listing(6001));
        return [tx.get('listings', listing(6001).id)?.id, tx.get('listings', 'nope')];
      },
      [['listings', 'nope']],
    );
    expect(seen).toEqual([listing(6001).id, undefined]);
    await a.transact((tx) => ['nope', rec.id, listing(6001).id].forEach((id) => tx.delete('listings', id)));
  });

  it('export the same text as the JSON store, and import it back identically into an empty database', async () => {
    const want = await text(json);
    expect(want).toContain(LISTINGS[1199].id);
    expect(await text(a)).toBe(want);
    const file = path.join(dir, 'export.json');
    writeFileSync(file, want);
    const c = await openShared((await freshDatabase()).url);
    try {
      await seedStore(c, [file]);
      expect(await text(c)).toBe(want);
    } finally {
      await c.close();
    }
  });

  it('refuse an import whose record ids exist already, naming them, and write nothing', async () => {
    const file = path.join(dir, 'dup.json');
    const fresh = listing(7000);
    writeFileSync(file, JSON.stringify({ version: 1, listings: [fresh, LISTINGS[3]] }));
    const err = await seedStore(a, [file]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).problems).toEqual([
      { path: '$.listings[1].id', message: `id \`${LISTINGS[3].id}\` already exists in the store` },
    ]);
    expect(await a.records.get('listings', fresh.id)).toBeUndefined();
  });

  it('an import may refer to records already in the table (an article to its list), and not to missing ones', async () => {
    const db = await freshDatabase();
    const c = await Store.openShared(db.url);
    const list = '80000000-0000-4000-8000-000000000001';
    const article = (id: string, list_id: string) => ({
      id,
      list_id,
      versions: [{ number: 1, title: 'T', body: 'B', created_at: '2026-01-01T00:00:00Z' }],
    });
    const write = (name: string, doc: unknown) => {
      const file = path.join(dir, name);
      writeFileSync(file, JSON.stringify(doc));
      return file;
    };
    try {
      await seedStore(c, [
        write('lists.json', {
          version: 1,
          users: fixture.users,
          workspaces: fixture.workspaces,
          knowledge_lists: [{ id: list, workspace_id: eng.wsA, name: 'FAQ' }],
        }),
      ]);
      expect(c.state.count('knowledge_lists')).toBe(0);
      const counts = await seedStore(c, [
        write('article.json', { version: 1, articles: [article('80000000-0000-4000-8000-000000000002', list)] }),
      ]);
      expect(counts).toEqual({ articles: 1 });
      const nowhere = '80000000-0000-4000-8000-000000000009';
      const err = await seedStore(c, [
        write('dangling.json', { version: 1, articles: [article('80000000-0000-4000-8000-000000000003', nowhere)] }),
      ]).catch((e: unknown) => e);
      expect((err as FixtureError).problems).toEqual([
        { path: '$.articles[0].list_id', message: `refers to knowledge_lists \`${nowhere}\`, which does not exist` },
      ]);
      // The list's id is taken: importing another list with it is refused as on the JSON store.
      const dup = await seedStore(c, [
        write('dup-list.json', { version: 1, knowledge_lists: [{ id: list, workspace_id: eng.wsA, name: 'Again' }] }),
      ]).catch((e: unknown) => e);
      expect((dup as FixtureError).problems).toEqual([
        { path: '$.knowledge_lists[0].id', message: `id \`${list}\` already exists in the store` },
      ]);
    } finally {
      await c.close();
    }
  });

  it('are in named snapshots: a reset to one brings them back for every process; a clear empties them', async () => {
    const shelf = pgShelf(a.shared!.sql);
    await shelf.save('with-records', a.copy(new Set(COLLECTIONS.filter((c) => c !== 'settings')), 'settings'));
    await a.bulk((tx) => TABLED.forEach((c) => tx.clear(c)));
    await b.sync();
    expect(await b.records.size('listings')).toBe(0);
    expect(await b.records.count('bookingsByWorkspace', eng.wsA)).toBe(0);
    expect((await shelf.list()).find((s) => s.name === 'with-records')!.bytes).toBeGreaterThan(200_000);
    const saved = (await shelf.read('with-records'))!;
    await a.restore(saved, ['settings'], undefined, shelf.tablesBack('with-records', saved, a.tabled));
    await b.sync();
    expect(await text(b)).toBe(await text(json));
    expect(await shelf.remove('with-records')).toBe(true);
    const [{ n }] = await a.shared!.sql<Array<{ n: number }>>`
      select (select count(*) from wcm_named_records) + (select count(*) from wcm_named_record_keys) as n`;
    expect(Number(n)).toBe(0);
  });

  it('the collections moved so far are held by no process that opens the database as wcm serve does', async () => {
    expect([...RECORD_TABLE_COLLECTIONS].sort()).toEqual(
      [
        ...['bookings', 'voice_interactions', 'listings', 'forms', 'pages', 'knowledge_lists', 'articles'],
        ...['offers', 'agents', 'orders', 'analytics_events', 'payment_events'],
      ].sort(),
    );
    const db = await freshDatabase();
    const [one, two] = [await Store.openShared(db.url), await Store.openShared(db.url)];
    try {
      await seedStore(one, [path.join(dir, 'fixture.json')]);
      await two.sync();
      for (const s of [one, two])
        for (const c of RECORD_TABLE_COLLECTIONS) {
          expect(s.state.count(c), c).toBe(0);
          expect(() => s.count(c)).toThrow(c);
          expect(await s.records.size(c), c).toBe(await json.records.size(c));
        }
    } finally {
      for (const s of [one, two]) await s.close();
    }
  });

  it('moves the records an older base held into the table at start-up', async () => {
    const db = await freshDatabase();
    const first = await openShared(db.url);
    // A base as a wcm before this table wrote it: the JSON store's snapshot, listings and all.
    const chunks: Buffer[] = [];
    for await (const c of json.copy(new Set(['users', 'workspaces', 'listings']))) chunks.push(c);
    const bytes = Buffer.concat(chunks);
    await first.shared!.sql`insert into wcm_base (chunk, seq, data) values (0, 1, ${bytes})`;
    await first.close();
    const later = await openShared(db.url);
    try {
      expect(later.state.count('listings')).toBe(0);
      expect(await later.records.size('listings')).toBe(LISTINGS.length);
      expect(await later.records.get('listings', LISTINGS[9].id)).toEqual(LISTINGS[9]);
    } finally {
      await later.close();
    }
  });
});
