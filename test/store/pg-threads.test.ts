// Threads on PostgreSQL live in their own table and are read with keyset queries (docs/sandbox.md:
// "more data than fits comfortably in one process's memory"). The same threads in a JSON store and
// a PostgreSQL store must list, count and search alike, page by page; and no process on the
// database holds them in memory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNELS, THREAD_VIEWS, type Channel } from '../../src/contract/enums.js';
import { exportFixture, exportText, FixtureError } from '../../src/store/fixture.js';
import { pgShelf } from '../../src/store/pg/named.js';
import { seedStore } from '../../src/store/seed.js';
import { Store } from '../../src/store/store.js';
import type { ThreadFilter } from '../../src/store/thread-repository.js';
import { putThread, type FullThread } from '../../src/store/threads.js';
import type { SortKey } from '../../src/store/sorted-index.js';
import type { RecordSlice } from '../../src/store/record-repository.js';
import { freshDatabase } from '../support/postgres.js';
import { allThreads, deleteThread, readFullThread } from '../support/threads.js';
import { writeFileSync } from 'node:fs';

const WS = ['00000000-0000-4000-8000-00000000aa01', '00000000-0000-4000-8000-00000000aa02'];
const uuid = (n: number, kind = 'c') => `00000000-0000-4000-8${kind}00-${String(n).padStart(12, '0')}`;
// Bodies and names with what COPY and array literals must escape, and letters that lower-case.
const WORDS = ['Alpha', 'beta\tTab', 'gamma\nline', 'back\\slash', 'quote"d', 'Ünïcode', 'comma,brace{}', 'plain'];

/** `n` threads over two workspaces: every status/unread/starred mix, 1–3 channels, ties on time, some without messages. */
function threads(n: number): FullThread[] {
  return Array.from({ length: n }, (_, i) => {
    const count = i % 11 === 0 ? 0 : 1 + (i % 3);
    // Every 5th thread shares its time with the one before: the id breaks the tie.
    const at = (k: number) =>
      new Date(Date.UTC(2026, 0, 1) + (i - (i % 5 === 0 ? 1 : 0)) * 60_000 - k * 1000).toISOString();
    return {
      id: uuid(i, 'c'),
      workspace_id: WS[i % 2],
      subject: i % 7 === 0 ? null : `Subject ${WORDS[i % WORDS.length]} ${i}`,
      status: i % 4 === 0 ? 'closed' : 'open',
      unread: i % 3 === 0,
      starred: i % 5 === 1,
      contact: {
        id: uuid(i % 40, 'd'),
        name: i % 9 === 0 ? null : `Name ${WORDS[(i * 3) % WORDS.length]}`,
        email: i % 6 === 0 ? null : `Person${i % 40}@Example.com`,
        phone: null,
      },
      messages: Array.from({ length: count }, (_, k) => ({
        id: uuid(i * 10 + k, 'e'),
        channel: CHANNELS[(i + k) % CHANNELS.length],
        direction: k % 2 ? 'outbound' : 'inbound',
        body: `${WORDS[(i + k) % WORDS.length]} message ${k}`,
        created_at: at(count - 1 - k),
      })),
    } as FullThread;
  });
}

const N = 1500; // past the COPY threshold (1,000 rows): the bulk load streams them with COPY
const ALL = threads(N);
let dir: string;
let json: Store;
let pg: Store;
let other: Store;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wcm-pg-threads-'));
  json = await Store.open(path.join(dir, 'store.json'));
  const db = await freshDatabase();
  url = db.url;
  pg = await Store.openShared(url);
  other = await Store.openShared(url);
  for (const s of [json, pg])
    await s.bulk((tx) => {
      for (const id of WS) tx.put('workspaces', { id, name: id, stripe_account_id: null, members: [] });
      ALL.forEach((t) => putThread(tx, t));
    });
}, 120_000);

afterAll(async () => {
  for (const s of [json, pg, other]) await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every page of a filter, `limit` at a time: the ids in order and the cursor keys between pages. */
async function pageAll(s: Store, f: ThreadFilter, limit: number) {
  const ids: string[] = [];
  const keys: SortKey[] = [];
  let after: SortKey | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const p: RecordSlice<string> = await s.threads.page(f, after, limit, (t) => t.id);
    ids.push(...p.items);
    if (!p.more) break;
    keys.push(p.last!);
    after = p.last;
  }
  return { ids, keys };
}

describe('threads on PostgreSQL', () => {
  it('are not held in memory by any process, yet every process reads them', async () => {
    expect(json.count('threads')).toBe(N);
    expect(pg.count('threads')).toBe(0);
    expect(pg.count('thread_messages')).toBe(0);
    await other.sync();
    expect(other.count('threads')).toBe(0);
    expect(await other.threads.size()).toBe(N);
    expect(await readFullThread(other, ALL[42].id)).toEqual(ALL[42]);
  });

  it('keep every field exactly through COPY (tabs, line breaks, backslashes, quotes, Unicode)', async () => {
    for (const t of ALL.slice(0, 40)) expect(await readFullThread(pg, t.id)).toEqual(await readFullThread(json, t.id));
    expect(await pg.threads.get(uuid(999_999))).toBeUndefined();
  });

  it('list, page and count as the JSON store does, for every view, channel and search', async () => {
    const channels: Array<Channel | undefined> = [undefined, ...CHANNELS];
    let compared = 0;
    for (const workspace of WS)
      for (const view of THREAD_VIEWS)
        for (const channel of channels) {
          expect(await pg.threads.count(workspace, view, channel)).toBe(
            await json.threads.count(workspace, view, channel),
          );
          for (const q of ['', 'tab', 'ü', 'example.com', 'line', '"d', 'no such text'].map((x) => x.toLowerCase())) {
            const f = { workspace, view, channel, q };
            const want = await pageAll(json, f, 37);
            expect(await pageAll(pg, f, 37)).toEqual(want);
            compared += want.ids.length;
          }
        }
    expect(compared).toBeGreaterThan(N);
  });

  it("find a contact's other threads, and list all threads in the export order", async () => {
    const t = ALL[12];
    const contact = { id: t.contact.id, email: t.contact.email };
    expect((await pg.threads.ofContact(t.workspace_id, contact, t.id, 10)).map((x) => x.id)).toEqual(
      (await json.threads.ofContact(t.workspace_id, contact, t.id, 10)).map((x) => x.id),
    );
    expect(await allThreads(pg)).toEqual(await allThreads(json));
  });

  it("order a contact's threads with the same time by id, newest first, on both stores", async () => {
    const base = ALL[13];
    // Three threads of one contact at one time, written in an order that is not the ids' order.
    const same = [7, 9, 8].map((k) => ({ ...base, id: uuid(900_000 + k, 'f'), messages: base.messages }));
    for (const s of [json, pg]) await s.transact((tx) => same.forEach((x) => putThread(tx, x)));
    const contact = { id: base.contact.id, email: base.contact.email };
    const want = [9, 8, 7].map((k) => uuid(900_000 + k, 'f'));
    try {
      for (const s of [json, pg]) {
        const got = (await s.threads.ofContact(base.workspace_id, contact, base.id, 100)).map((x) => x.id);
        expect(got.filter((id) => want.includes(id))).toEqual(want);
      }
    } finally {
      for (const s of [json, pg]) await s.transact((tx) => same.forEach((x) => deleteThread(tx, x.id)));
    }
  });

  it('export the same text from either store, in pieces, as the whole document prints', async () => {
    const pieces: string[] = [];
    for await (const piece of exportText(pg)) pieces.push(piece);
    expect(pieces.length).toBeGreaterThan(1);
    let fromJson = '';
    for await (const piece of exportText(json)) fromJson += piece;
    expect(pieces.join('')).toBe(fromJson);
    expect(fromJson).toBe(JSON.stringify(exportFixture(json), null, 2) + '\n');
  });

  it('cache pages in each process only until it catches up with a write of threads by any process', async () => {
    const f = { workspace: WS[0], view: 'inbox' as const, q: '' };
    const top = async () => (await other.threads.page(f, null, 3, (t) => `${t.id} ${t.subject}`)).items[0];
    const before = await top();
    expect(await top()).toBe(before);
    const t = (await readFullThread(pg, before.split(' ')[0]))!;
    await pg.transact((tx) => putThread(tx, { ...t, subject: 'Renamed on another process' }));
    await other.sync();
    expect(await top()).toBe(`${t.id} Renamed on another process`);
    const open = await other.threads.count(WS[0], 'inbox');
    await pg.transact((tx) => putThread(tx, { ...t, status: 'closed' }));
    await other.sync();
    expect(await other.threads.count(WS[0], 'inbox')).toBe(open - 1);
    await pg.transact((tx) => putThread(tx, t));
    await other.sync();
    expect(await top()).toBe(before);
    expect(await other.threads.count(WS[0], 'inbox')).toBe(open);
  });

  it('refuse an import whose thread ids exist already, naming them, and write nothing', async () => {
    const file = path.join(dir, 'dup.json');
    const fresh = { ...ALL[1], id: uuid(777_777) };
    writeFileSync(file, JSON.stringify({ version: 1, threads: [fresh, ALL[3]] }));
    const err = await seedStore(pg, [file]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixtureError);
    expect((err as FixtureError).problems).toEqual([
      { path: '$.threads[1].id', message: `id \`${ALL[3].id}\` already exists in the store` },
    ]);
    expect(await pg.threads.get(fresh.id)).toBeUndefined();
    expect(await pg.threads.size()).toBe(N);
  });

  it('a large write into a table that holds threads already (COPY aside, then upsert) replaces and adds', async () => {
    const changed = ALL.slice(0, 1100).map((t) => ({ ...t, subject: `Changed ${t.id}` }));
    const added = threads(1200)
      .slice(0, 100)
      .map((t, i) => ({ ...t, id: uuid(500_000 + i) }));
    await pg.bulk((tx) => [...changed, ...added].forEach((t) => putThread(tx, t)));
    expect(await other.threads.size()).toBe(N + 100);
    expect(await readFullThread(other, ALL[5].id)).toEqual(changed[5]);
    expect(await readFullThread(other, added[9].id)).toEqual(added[9]);
    await pg.bulk((tx) => {
      ALL.slice(0, 1100).forEach((t) => putThread(tx, t));
      added.forEach((t) => {
        tx.delete('threads', t.id);
        tx.delete('thread_messages', t.id);
      });
    });
    expect(await other.threads.size()).toBe(N);
    expect(await readFullThread(other, ALL[5].id)).toEqual(ALL[5]);
    // Two such writes queued behind a third share one PostgreSQL transaction (group commit): both land.
    const large = (k: number) =>
      pg.transact((tx) => ALL.slice(k * 400, k * 400 + 1100).forEach((t) => putThread(tx, { ...t, subject: `k${k}` })));
    await Promise.all([pg.transact((tx) => tx.put('settings', { id: 'x', value: 1 })), large(0), large(1)]);
    expect((await readFullThread(other, ALL[0].id))!.subject).toBe('k0');
    expect((await readFullThread(other, ALL[N - 1].id))!.subject).toBe('k1');
    await pg.bulk((tx) => ALL.forEach((t) => putThread(tx, t)));
    expect(await other.threads.size()).toBe(N);
  });

  it('are in named snapshots: a reset to one brings them back for every process', async () => {
    const shelf = pgShelf(pg.shared!.sql);
    await shelf.save('with-threads', pg.copy(new Set(['users']), 'settings'));
    await pg.bulk((tx) => tx.clear('threads'));
    expect(await other.threads.size()).toBe(0);
    const saved = (await shelf.read('with-threads'))!;
    await pg.restore(saved, ['settings'], undefined, shelf.tablesBack('with-threads', saved, pg.tabled));
    expect(await other.threads.size()).toBe(N);
    expect(await readFullThread(other, ALL[7].id)).toEqual(ALL[7]);
    expect(await shelf.remove('with-threads')).toBe(true);
    const [{ n }] = await pg.shared!.sql<Array<{ n: number }>>`select count(*)::int as n from wcm_named_threads`;
    expect(n).toBe(0);
  });
});
