import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { App, type AppResponse } from '../../../src/server/app.js';
import type { Clock } from '../../../src/server/context.js';
import { extendServer } from '../../../src/server/extend.js';
import type { LocalServerOptions } from '../../../src/server/serve.js';
import { seedStore } from '../../support/seed-store.js';
import type { FileLayer } from '../../../src/store/json/files.js';
import { Store } from '../../../src/store/json/store.js';
import type { StoreEngine } from '../../../src/store/engine/interface.js';
import { JsonEngine } from '../../../src/store/json/engine.js';
import { CLOCK_OFFSET_SETTING, type Loaded } from '../../../src/store/engine/interface.js';
import { parseStoreUrl, PostgresEngine } from '../../../src/store/postgres/engine.js';
import { COLLECTIONS } from '../../../src/store/records.js';
import { freshSchema } from '../../support/postgres.js';
import { DEMO, TestClock, demo, sendJson, tempDir } from '../../support/server.js';

export const SECRET = 'whsec_test_0123456789abcdefghijklmnopqrstuv';

export interface PublicApp {
  app: App;
  store: Store;
  /** The store behind its interface, as the App's handlers and middleware use it. */
  readonly db: StoreEngine;
  clock: TestClock;
  dataFile: string;
  request(r: {
    method?: string;
    url: string;
    key?: string | null;
    json?: unknown;
    body?: string | Buffer;
    headers?: Record<string, string>;
    remoteAddress?: string;
    /** Sent as the bearer token (sendJson). */
    token?: string;
  }): Promise<AppResponse & { json: any }>;
  /** The orders made since the demo was seeded (the demo has orders of its own: DEMO_ORDERS). */
  ordersMade(): Promise<number>;
  /**
   * Everything the store keeps, as text: the data file and its journal (read after a restart, so
   * nothing is only in memory), or every row of the PostgreSQL schema.
   */
  storedText(): Promise<string>;
  /** Closes the store and opens the same file again with a new App: a server restart. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/** Every record of a seeded file store, for a load into another engine. */
function* loadedFrom(store: Store): Iterable<Loaded> {
  for (const c of COLLECTIONS) for (const rec of store.values(c)) yield [c, rec] as unknown as Loaded;
}

/** How many orders fixtures/demo.json holds: tests count the orders they make on top of it. */
export const DEMO_ORDERS = ((JSON.parse(readFileSync(DEMO, 'utf8')) as { orders?: unknown[] }).orders ?? []).length;

export interface PublicAppOptions {
  clock?: TestClock;
  rateLimit?: number;
  env?: NodeJS.ProcessEnv;
  payments?: LocalServerOptions['payments'];
  /** Replaces the payment provider `wcm serve` would choose. */
  services?: Record<string, unknown>;
  /** The store's disk layer (fault injection). */
  files?: FileLayer;
}

/**
 * The real App with everything `wcm serve` adds (extendServer: rate limits, idempotency, payments,
 * signing secret) on a real store file in a temp directory, seeded with fixtures/demo.json, and a
 * TestClock. No socket: requests go to `app.handle`.
 */
export async function publicApp(opts: PublicAppOptions = {}): Promise<PublicApp> {
  const { dir, cleanup } = tempDir('wcm-public-');
  const dataFile = path.join(dir, 'store.json');
  const clock = opts.clock ?? new TestClock();
  const env = opts.env ?? { WCM_WEBHOOK_SECRET: SECRET };
  let store = await Store.open(dataFile, { files: opts.files });
  await seedStore(store, [DEMO]);
  // The postgres project: the records in a schema of their own (the demo loaded from the seeded
  // file), unless the test is about the file's own layer (`files`).
  const pgUrl = process.env.WCM_TEST_STORE === 'postgres' && !opts.files ? (await freshSchema()).url : undefined;
  if (pgUrl) {
    const pg = await PostgresEngine.open(pgUrl);
    await pg.load(COLLECTIONS, loadedFrom(store));
    await pg.close();
  }
  const build = async () => {
    // One engine for the areas' middleware and the handlers, as `wcm serve` has.
    db = pgUrl ? await PostgresEngine.open(pgUrl) : new JsonEngine(store, { clock: () => clock.now().getTime() });
    const extra = await extendServer({
      db,
      clock: clock as Clock,
      options: { dataFile, rateLimit: opts.rateLimit ?? 1000, env, payments: opts.payments },
    });
    return new App({ db, clock, services: { ...extra.services, ...opts.services }, use: extra.use });
  };
  let db!: StoreEngine;
  /**
   * On PostgreSQL the store's time is the database's clock plus the emulator's offset: before each
   * request the offset is set so that the store's time is the test clock's (to a few ms).
   */
  let synced: number | null = null;
  const syncClock = async () => {
    if (db.kind !== 'postgres' || synced === clock.now().getTime()) return;
    synced = clock.now().getTime();
    const target = synced;
    await db.write(async (tx) => {
      const kept = (await tx.get('settings', CLOCK_OFFSET_SETTING))?.value;
      const base = (await tx.now()) - (typeof kept === 'number' ? kept : 0);
      await tx.put('settings', { id: CLOCK_OFFSET_SETTING, value: target - base });
    });
  };
  let app: App;
  try {
    app = await build();
  } catch (err) {
    await store.close();
    if (db?.kind === 'postgres') await db.close();
    cleanup();
    throw err;
  }
  const h: PublicApp = {
    app,
    store,
    get db() {
      return db;
    },
    clock,
    dataFile,
    async request(r) {
      await syncClock();
      const headers: Record<string, string> = { ...r.headers };
      if (r.key !== null && r.key !== undefined) headers['idempotency-key'] = r.key;
      return sendJson(h.app, {
        ...r,
        method: r.method ?? 'POST',
        headers,
        remoteAddress: r.remoteAddress ?? '192.0.2.10',
      });
    },
    async ordersMade() {
      return (await h.db.read((tx) => tx.count('orders'))) - DEMO_ORDERS;
    },
    async storedText() {
      if (pgUrl) {
        const { default: postgres } = await import('postgres');
        const { base, schema } = parseStoreUrl(pgUrl);
        const sql = postgres(base, { max: 1, onnotice: () => undefined });
        try {
          const tables = await sql`select table_name from information_schema.tables where table_schema = ${schema}`;
          const out: string[] = [];
          for (const { table_name } of tables)
            for (const row of await sql`select * from ${sql(schema)}.${sql(table_name as string)}`)
              out.push(JSON.stringify(row));
          return out.join('\n');
        } finally {
          await sql.end();
        }
      }
      await h.restart();
      return [dataFile, `${dataFile}.journal`]
        .filter(existsSync)
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n');
    },
    async restart() {
      await store.close();
      if (db.kind === 'postgres') await db.close();
      synced = null;
      store = await Store.open(dataFile, { files: opts.files });
      h.store = store;
      h.app = await build();
    },
    async close() {
      await store.close();
      if (db.kind === 'postgres') await db.close();
      cleanup();
    },
  };
  return h;
}

export const payUrl = (offer: string, base = '/v1') => `${base}/public/commerce/offers/${offer}/payment-intents`;
export const openedUrl = (agent: string, base = '/v1') => `${base}/public/agents/${agent}/analytics-events/opened`;
export { demo, TestClock };
