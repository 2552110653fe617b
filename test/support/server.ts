import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { App, AppRequest, AppResponse } from '../../src/server/app.js';
import type { Clock } from '../../src/server/context.js';
import type { LocalServer } from '../../src/server/serve.js';
import type { TrustOptions } from '../../src/server/trust/config.js';
import type { Store } from '../../src/store/json/store.js';
import type { StoreEngine } from '../../src/store/engine/interface.js';

// The server's modules load when a test first starts one (inProcess, onPort): most end-to-end files
// only need the constants here and spawn the built binary, and loading the whole server costs each
// of them seconds.
export const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
export const DEMO = path.join(ROOT, 'fixtures/demo.json');

/** Well-known ids and tokens of fixtures/demo.json. */
export const demo = {
  owner: 'wcm_pat_demoOwnerAllAbilities0123456789abcdefghi',
  contentReader: 'wcm_pat_demoContentReader0123456789abcdefghijklm',
  support: 'wcm_pat_demoSupportEngagements0123456789abcdefgh',
  expired: 'wcm_pat_demoExpiredContentRead0123456789abcdefgh',
  ciWriter: 'wcm_pat_demoCiWriterContent0123456789abcdefghijk',
  revoked: 'wcm_pat_demoRevokedContentRead0123456789abcdefgh',
  ws1: '775050e9-98e8-4600-8d0f-afce4b67e137',
  ws2: '542ff9e7-e05a-46c0-ad3e-beacb5594f25',
  ws3: '12c85f26-8978-4be2-9ba0-7cdbaa3b6166',
  knowledgeList: '34245e7c-3e2f-40d4-838c-7d330fa624ba',
  article4Versions: '4b59d3dc-e7ad-4374-92b1-2a4b915ca262',
  article3Versions: 'c8662610-465b-432d-bc0c-117f751f478a',
  articleNeverPublished: '5289b16f-a49c-4716-8e8c-e2201297cbc1',
  offerFixedUsd: '47bf2ba6-6986-4574-8021-b3f80bc333f3',
  offerContributionUsd: 'd36ee78f-370a-48f4-9ccb-a61edba6f404',
  offerInactive: '779b93e4-2555-4b8a-b508-2a07986e9b75',
  offerFixedEur: 'feb397a4-bf59-4e5a-9ca5-4062fd9c7ecd',
  agent1: '78877ec3-e7f9-4eb3-b628-2184a18c24a4',
  agent3: '64d7cc04-52d4-4705-8385-673836eab76f',
  formCatering: 'e5bfd74f-95a3-4f41-b615-83ee8cf45bca',
  pageAcme: '71184361-1989-42ed-9156-e4650146c0d5',
  pageHoliday: '0845b14f-2854-49d9-a836-5194b4317c42',
  newestThread: '5ea2a4c5-c797-4351-8165-a6a2bbcd6086',
  /** A public OAuth app of Acme Coffee (loopback redirect http://127.0.0.1/callback, any port). */
  oauthAppAcme: 'wcm_app_demoAcmeHelpdeskAgent000000001',
  /** A confidential OAuth app of Blue Fern Studio, and its secret. */
  oauthAppBlueFern: 'wcm_app_demoBlueFernBookingSync000000002',
  oauthAppBlueFernSecret: 'wcm_secret_demoBlueFernBookingSync0123456789',
  /** Ada's grants: `wcm auth login --web` (API, Acme + Blue Fern) and the Acme app (MCP); Bo's to the Blue Fern app. */
  grantAda: 'grant_demoAdaCliLogin000001',
  grantAdaHelpdesk: 'grant_demoAdaAcmeHelpdesk01',
  grantBo: 'grant_demoBoBlueFernSync0001',
  /** OAuth access tokens of Ada: audience wcm-mcp (Acme); API audience granted Blue Fern only; of a revoked grant. */
  oauthMcp: 'wcm_oat_demoAdaMcpAudience0123456789abcdefghij',
  oauthBlueFernOnly: 'wcm_oat_demoAdaGrantBlueFernOnly0123456789abc',
  oauthRevokedGrant: 'wcm_oat_demoAdaRevokedGrant0123456789abcdefgh',
} as const;

/** A fresh temp directory, removed by the returned function. */
export function tempDir(prefix = 'wcm-test-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A settable clock for tests. */
export class TestClock implements Clock {
  constructor(public current = new Date('2026-11-22T12:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

export interface InProcess {
  app: App;
  /** The store behind its interface, either engine. */
  db: StoreEngine;
  /** The JSON engine's file store (tests about its files; throws on the postgres project). */
  readonly store: Store;
  dir: string;
  /** Sends a request to the app without a socket; `json` is the parsed body. */
  request(
    req: Partial<AppRequest> & { method?: string; url: string; token?: string; json?: unknown },
  ): Promise<AppResponse & { json: any }>;
  /** Closes the store and opens what it wrote again, as a restart would (same file or database). */
  reopen(): Promise<StoreEngine>;
  close(): Promise<void>;
}

/**
 * Sends a request to an App without a socket: `token` becomes the bearer header, `json` the body
 * (with its content type); the answer comes back with `json`, its parsed body (or undefined).
 */
export async function sendJson(
  app: App,
  r: Partial<AppRequest> & { method?: string; url: string; token?: string; json?: unknown },
): Promise<AppResponse & { json: any }> {
  const headers: Record<string, string> = { host: 'localhost', ...(r.headers as Record<string, string>) };
  if (r.token) headers.authorization = `Bearer ${r.token}`;
  let body = r.body;
  if (r.json !== undefined) {
    body = JSON.stringify(r.json);
    headers['content-type'] ??= 'application/json';
  }
  const res = await app.handle({
    method: r.method ?? 'GET',
    url: r.url,
    headers,
    body,
    remoteAddress: r.remoteAddress,
  });
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  // The response may be a class with accessors (list pages): add to it rather than spread it.
  return Object.assign(res, { json });
}

/**
 * With WCM_TEST_STORE=postgres (the `postgres` vitest project), servers keep their records in a
 * fresh database on the run's PostgreSQL instead of a file: the same tests, the other store.
 * `demo`: a copy of a database seeded with the demo fixture once per worker (`seeded`), else an
 * empty schema to seed.
 */
async function testDatabase(demo: boolean): Promise<{ url: string; seeded: boolean } | undefined> {
  if (process.env.WCM_TEST_STORE !== 'postgres') return undefined;
  const { freshSchema, templateCopy } = await import('./postgres.js');
  if (!demo) return { ...(await freshSchema()), seeded: false };
  return { ...(await templateCopy('demo', seedDemo)), seeded: true };
}

const onlyDemo = (fixtures?: string[]) => !fixtures || (fixtures.length === 1 && fixtures[0] === DEMO);

/** The demo fixture seeded by the real code, as every server would seed it (the template of testDatabase). */
async function seedDemo(url: string): Promise<void> {
  const [{ seedEngine }, { PostgresEngine }] = await Promise.all([
    import('../../src/store/fixtures/seed.js'),
    import('../../src/store/postgres/engine.js'),
  ]);
  const db = await PostgresEngine.open(url);
  try {
    await seedEngine(db, [DEMO]);
  } finally {
    await db.close();
  }
}

/**
 * The real App and the real store, seeded with fixtures (demo by default): the JSON engine over a
 * data file in a temp directory, or on the postgres project the PostgreSQL engine on a fresh schema.
 * The JSON engine's clock is `clock`; the PostgreSQL engine's is the database's, unless `storeClock`:
 * then the offset setting (the emulator's clock) puts the database's time at `clock`'s when the
 * store opens, so `tx.now()` starts at the test's time on either engine (move both with
 * `moveClock`, test/support/oauth.ts; on PostgreSQL it runs on from there).
 */
export async function inProcess(
  opts: { fixtures?: string[]; clock?: Clock; storeClock?: boolean; services?: Record<string, unknown> } = {},
): Promise<InProcess> {
  const [{ App }, { importFixtures }, { JsonEngine }, { PostgresEngine }, { CLOCK_OFFSET_SETTING }] = await Promise.all(
    [
      import('../../src/server/app.js'),
      import('../../src/store/fixtures/seed.js'),
      import('../../src/store/json/engine.js'),
      import('../../src/store/postgres/engine.js'),
      import('../../src/store/engine/interface.js'),
    ],
  );
  const { dir, cleanup } = tempDir();
  const pg = await testDatabase(onlyDemo(opts.fixtures));
  const clock = opts.clock;
  const open = (): Promise<StoreEngine> =>
    pg
      ? PostgresEngine.open(pg.url)
      : JsonEngine.open(path.join(dir, 'store.json'), clock ? { clock: () => clock.now().getTime() } : {});
  const db = await open();
  if (!pg?.seeded) await importFixtures(db, opts.fixtures ?? [DEMO]);
  if (pg && clock && opts.storeClock) {
    const offset = clock.now().getTime() - (await db.read((tx) => tx.now()));
    await db.write((tx) => tx.put('settings', { id: CLOCK_OFFSET_SETTING, value: offset }));
  }
  const app = new App({ db, clock: opts.clock, services: opts.services });
  return {
    app,
    db,
    get store(): Store {
      if (!(db instanceof JsonEngine))
        throw new Error('This test reads the JSON file store: it runs on the json project only.');
      return db.store;
    },
    dir,
    request: (r) => sendJson(app, r),
    async reopen() {
      await db.close();
      return open();
    },
    async close() {
      await db.close();
      cleanup();
    },
  };
}

/** A server of onPort: a LocalServer, its temp directory, and (JSON tests) its file store. */
export type OnPort = LocalServer & {
  dir: string;
  cleanup(): void;
  storeUrl?: string;
  /** The JSON engine's file store (tests about it; throws on the postgres project). */
  readonly store: Store;
};

/** The JSON engine's file store under `db`; a test that reads it runs on the json project only. */
export function fileStoreOf(db: StoreEngine): Store {
  const store = (db as { store?: Store }).store;
  if (db.kind !== 'json' || !store)
    throw new Error('This test reads the JSON file store: it runs on the json project only.');
  return store;
}

/** The real server on a free loopback port, with everything `wcm serve` adds. */
export async function onPort(
  opts: {
    fixtures?: string[];
    clock?: Clock;
    rateLimit?: number;
    dataFile?: string;
    host?: string;
  } & TrustOptions = {},
): Promise<OnPort> {
  const [{ extendServer }, { startLocalServer }] = await Promise.all([
    import('../../src/server/extend.js'),
    import('../../src/server/serve.js'),
  ]);
  const { dir, cleanup } = tempDir();
  // `wcm serve --seed` seeds an empty store only, and says so: each server seeds its own schema.
  const pg = opts.dataFile ? undefined : await testDatabase(false);
  const server = await startLocalServer({
    dataFile: opts.dataFile ?? path.join(dir, 'store.json'),
    storeUrl: pg?.url,
    port: 0,
    seeds: opts.fixtures ?? [DEMO],
    clock: opts.clock,
    rateLimit: opts.rateLimit,
    extend: extendServer,
    host: opts.host,
    publicUrl: opts.publicUrl,
    allowedHosts: opts.allowedHosts,
    allowedOrigins: opts.allowedOrigins,
    trustProxy: opts.trustProxy,
  });
  const stop = server.close.bind(server); // taken before Object.assign replaces `close`
  Object.defineProperty(server, 'store', { get: () => fileStoreOf(server.db) });
  return Object.assign(server as OnPort, {
    dir,
    cleanup,
    /** The PostgreSQL database's URL (postgres project), for a second process's store. */
    storeUrl: pg?.url,
    close: async () => {
      await stop();
      cleanup();
    },
  });
}
