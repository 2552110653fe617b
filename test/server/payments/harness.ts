import { readFileSync } from 'node:fs';
import path from 'node:path';
import { App, type AppResponse } from '../../../src/server/app.js';
import type { Clock } from '../../../src/server/context.js';
import { extendServer } from '../../../src/server/extend.js';
import type { LocalServerOptions } from '../../../src/server/serve.js';
import { seedStore } from '../../../src/store/seed.js';
import type { FileLayer } from '../../../src/store/files.js';
import { Store } from '../../../src/store/store.js';
import type { StoreEngine } from '../../../src/store/engine/interface.js';
import { JsonEngine } from '../../../src/store/json/engine.js';
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
  /** Closes the store and opens the same file again with a new App: a server restart. */
  restart(): Promise<void>;
  close(): Promise<void>;
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
  const build = async () => {
    // One engine for the areas' middleware and the handlers, as `wcm serve` has.
    db = new JsonEngine(store, { clock: () => clock.now().getTime() });
    const extra = await extendServer({
      store,
      db,
      clock: clock as Clock,
      options: { dataFile, rateLimit: opts.rateLimit ?? 1000, env, payments: opts.payments },
    });
    return new App({ store, db, clock, services: { ...extra.services, ...opts.services }, use: extra.use });
  };
  let db!: StoreEngine;
  let app: App;
  try {
    app = await build();
  } catch (err) {
    await store.close();
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
    request(r) {
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
    async restart() {
      await store.close();
      store = await Store.open(dataFile, { files: opts.files });
      h.store = store;
      h.app = await build();
    },
    async close() {
      await store.close();
      cleanup();
    },
  };
  return h;
}

export const payUrl = (offer: string, base = '/v1') => `${base}/public/commerce/offers/${offer}/payment-intents`;
export const openedUrl = (agent: string, base = '/v1') => `${base}/public/agents/${agent}/analytics-events/opened`;
export { demo, TestClock };
