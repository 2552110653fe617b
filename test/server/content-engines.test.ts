/*
 * The content and thread lists answer the same on both engines: the same records loaded into the
 * JSON engine and into the PostgreSQL engine, and every list walked page by page through each;
 * bodies (items, order, cursors) must be byte for byte the same.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../src/server/app.js';
import { CHANNELS, THREAD_VIEWS } from '../../src/contract/enums.js';
import type { Loaded } from '../../src/store/engine/interface.js';
import { PostgresEngine } from '../../src/store/postgres/engine.js';
import { COLLECTIONS } from '../../src/store/records.js';
import { fileEngine, seedStore } from '../support/seed-store.js';
import { Store } from '../../src/store/json/store.js';
import { eng, writeEngagementFixture } from '../support/engagement.js';
import { generateThreads } from '../support/generate-threads.mjs';
import { freshDatabase, type TestDatabase } from '../support/postgres.js';
import { DEMO, demo, tempDir } from '../support/server.js';

let dir: ReturnType<typeof tempDir>;
let database: TestDatabase;
let store: Store;
let pg: PostgresEngine;
let onJson: App;
let onPg: App;

beforeAll(async () => {
  dir = tempDir();
  database = await freshDatabase();
  // The engagement fixture's threads and 400 more in its workspace: ties on last_message_at, every
  // view and channel, and enough of each for several pages.
  const generated = generateThreads({ count: 400, workspaceId: eng.wsA, seed: 11 }).threads;
  const file = writeEngagementFixture(dir.dir);
  const more = path.join(dir.dir, 'more.json');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(more, JSON.stringify({ version: 1, threads: generated }));
  store = await Store.open(path.join(dir.dir, 'store.json'));
  await seedStore(store, [DEMO]);
  await seedStore(store, [file]);
  await seedStore(store, [more]);
  pg = await PostgresEngine.open(database.url, { max: 2 });
  const records: Loaded[] = [];
  for (const c of COLLECTIONS) for (const r of store.values(c)) records.push([c, r] as unknown as Loaded);
  await pg.load(COLLECTIONS, records);
  onJson = new App({ db: fileEngine(store) });
  onPg = new App({ db: pg });
}, 120_000);

afterAll(async () => {
  await pg?.close();
  await store?.close();
  await database?.drop();
  dir?.cleanup();
});

const get = async (app: App, url: string, token: string) => {
  const res = await app.handle({
    method: 'GET',
    url,
    headers: { host: 'localhost', authorization: `Bearer ${token}`, 'x-request-id': 'req_same' },
  });
  return { status: res.status, body: res.body };
};

/** Walks a list to its end on both engines, comparing every page; returns how many pages and items. */
async function sameEverywhere(url: string, token: string): Promise<{ pages: number; items: number }> {
  let next: string | null = url;
  let pages = 0;
  let items = 0;
  while (next) {
    const [a, b] = [await get(onJson, next, token), await get(onPg, next, token)];
    expect(a.status, next).toBe(200);
    expect(b.body, next).toBe(a.body);
    const body = JSON.parse(a.body) as { data: unknown[]; meta: { next_cursor: string | null } };
    pages++;
    items += body.data.length;
    const cursor = body.meta.next_cursor;
    next = cursor ? `${url}${url.includes('?') ? '&' : '?'}cursor=${cursor}` : null;
  }
  return { pages, items };
}

describe('listThreads on both engines', () => {
  const base = `/v1/workspaces/${eng.wsA}/threads`;
  const filters = THREAD_VIEWS.flatMap((view) =>
    ['', ...CHANNELS].map((channel) => `view=${view}${channel ? `&channel=${channel}` : ''}`),
  );

  it.each(filters)('%s: every page by 7, then by 100', async (filter) => {
    const small = await sameEverywhere(`${base}?${filter}&limit=7`, eng.token);
    const big = await sameEverywhere(`${base}?${filter}&limit=100`, eng.token);
    expect(small.items).toBe(big.items);
  });

  it.each(['maya', 'ORDER', 'café', 'okafor', 'nothing-matches-this', 'a'])(
    'q=%s in the inbox and in each view, by 5',
    async (q) => {
      for (const view of THREAD_VIEWS)
        await sameEverywhere(`${base}?view=${view}&q=${encodeURIComponent(q)}&limit=5`, eng.token);
    },
  );

  it('a rare q over the whole workspace finds the same few threads', async () => {
    const { items } = await sameEverywhere(
      `${base}?view=inbox&q=${encodeURIComponent('lost property')}&limit=3`,
      eng.token,
    );
    expect(items).toBeGreaterThan(0);
  });

  it('getThread answers every thread the same, and an unknown one with the same 404', async () => {
    const ids = store.valuesInOrder('threads').map((t) => t.id);
    for (const id of [...ids.slice(0, 60), '00000000-0000-4000-8000-000000000000']) {
      const url = `/v1/workspaces/${eng.wsA}/threads/${id}`;
      const [a, b] = [await get(onJson, url, eng.token), await get(onPg, url, eng.token)];
      expect(b.status).toBe(a.status);
      expect(b.body).toBe(a.body);
    }
  });
});

describe('content lists on both engines', () => {
  const ws = `/v1/workspaces/${demo.ws1}`;
  it.each([
    'lists?limit=2',
    'forms?limit=1',
    'knowledge-lists?limit=1',
    `knowledge-lists/${demo.knowledgeList}/articles?limit=2`,
    'bookings?limit=2',
    'bookings?status=confirmed&limit=1',
    'bookings?from=2026-01-01T00:00:00Z&to=2027-01-01T00:00:00Z&limit=1',
    'voice-interactions?limit=2',
    'voice-interactions?kind=call&limit=1',
  ])('%s', async (q) => {
    const { items } = await sameEverywhere(`${ws}/${q}`, demo.owner);
    expect(items).toBeGreaterThan(0);
  });
});
