import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { App, type Routes } from '../../../src/server/app.js';
import { htmlResponse } from '../../../src/server/web/html.js';
import { SESSION_COOKIE, sessionKey, Sessions } from '../../../src/server/web/session.js';
import { signIn } from '../../../src/server/web/signin.js';
import { hashToken, tokenId } from '../../../src/store/fixtures/import.js';
import { CLOCK_OFFSET_SETTING, type StoreEngine } from '../../../src/store/engine/interface.js';
import { JsonEngine } from '../../../src/store/json/engine.js';
import { PostgresEngine } from '../../../src/store/postgres/engine.js';
import { Store } from '../../../src/store/json/store.js';
import { freshDatabase, freshSchema } from '../../support/postgres.js';
import { TestClock, tempDir } from '../../support/server.js';

/**
 * Sessions are records of the store, so they hold across every process on one store: two
 * instances ("A" and "B", as two `wcm serve` processes). On the JSON file that is one engine (one
 * process); on PostgreSQL, two engines, each with its own connections, on one database. Time is
 * the store's: the JSON engine's clock, or the database's moved by the emulator's offset.
 */
interface Pair {
  engines: [StoreEngine, StoreEngine];
  advance(ms: number): Promise<void>;
  close(): Promise<void>;
}

let dbUrl = '';
const KINDS: { name: string; open(): Promise<Pair> }[] = [
  {
    name: 'JSON file',
    async open() {
      const dir = tempDir();
      const store = await Store.open(`${dir.dir}/store.json`);
      const clock = new TestClock();
      const db = new JsonEngine(store, { clock: () => clock.now().getTime() });
      return {
        engines: [db, db],
        advance: async (ms) => clock.advance(ms),
        close: async () => {
          await store.close();
          dir.cleanup();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      const [a, b] = [await PostgresEngine.open(dbUrl, { max: 2 }), await PostgresEngine.open(dbUrl, { max: 2 })];
      await a.load(['sessions', 'settings'], []);
      let offset = 0;
      return {
        engines: [a, b],
        async advance(ms) {
          offset += ms;
          await a.write((tx) => tx.put('settings', { id: CLOCK_OFFSET_SETTING, value: offset }));
        },
        close: async () => void (await Promise.all([a.close(), b.close()])),
      };
    },
  },
];

beforeAll(async () => {
  dbUrl = (await freshDatabase()).url;
});

describe.each(KINDS)('sessions on two instances: $name', (kind) => {
  let shared: Pair;
  beforeEach(async () => {
    shared = await kind.open();
  });
  afterEach(() => shared.close());

  const key = Buffer.alloc(32, 7); // the server key every process reads from the store
  const pair = (max?: number) => shared.engines.map((db) => new Sessions(db, { key, max })) as [Sessions, Sessions];
  const origin = { origin: 'http://127.0.0.1:5000' };
  const req = (id: string, path = '/dashboard') => ({ headers: { cookie: `${SESSION_COOKIE}=${id}` }, path });

  it('a session started on one instance is read on the other, with the same CSRF token, under its path only', async () => {
    const [a, b] = pair();
    const { session } = await a.start('usr_ada', '/dashboard', origin, 'tok_1');
    const read = await b.read(req(session.id, '/dashboard/workspaces'));
    expect(read).toEqual(session);
    expect(await b.read(req(session.id, '/oauth/authorize'))).toBeUndefined();
    expect(await b.read(req(session.id, '/dashboardx'))).toBeUndefined();
    expect(await b.read(req('nope'))).toBeUndefined();
  });

  it('ends after an idle hour by the store clock; use on either instance keeps it alive', async () => {
    const [a, b] = pair();
    const { session } = await a.start('usr_ada', '/dashboard', origin);
    for (const s of [b, a, b]) {
      await shared.advance(3540_000);
      expect((await s.read(req(session.id)))?.userId).toBe('usr_ada');
    }
    await shared.advance(3599_000);
    expect(await a.read(req(session.id))).toBeDefined();
    await shared.advance(3600_000);
    expect(await b.read(req(session.id))).toBeUndefined();
    expect(await a.count()).toBe(0);
  });

  it('signing out on one instance ends it on the other; a renewed cookie is seen by both', async () => {
    const [a, b] = pair();
    const { session } = await a.start('usr_ada', '/dashboard', origin);
    await shared.advance(1800_000);
    const seen = (await b.read(req(session.id)))!;
    expect(await b.renewal(seen, origin)).toMatch(/^wcm_session=/);
    // Renewed just now (on B): A does not renew it again.
    expect(await a.renewal((await a.read(req(session.id)))!, origin)).toBeUndefined();
    await a.end(seen, '/dashboard', origin);
    expect(await b.read(req(session.id))).toBeUndefined();
  });

  it('keeps at most `max` sessions: a new one ends the one idle longest', async () => {
    const [a, b] = pair(3);
    const first = (await a.start('u', '/d', origin)).session;
    await shared.advance(1);
    const second = (await b.start('u', '/d', origin)).session;
    await shared.advance(1);
    await a.start('u', '/d', origin);
    await shared.advance(60_000);
    expect(await b.read(req(first.id, '/d'))).toBeDefined();
    await b.start('u', '/d', origin);
    expect(await a.count()).toBe(3);
    expect(await a.read(req(second.id, '/d'))).toBeUndefined();
    expect(await a.read(req(first.id, '/d'))).toBeDefined();
  });

  it('the server key is made once: instances starting together keep one and each reads it', async () => {
    const [x, y] = await Promise.all(shared.engines.map((db) => sessionKey(db)));
    expect(x.equals(y)).toBe(true);
    expect((await sessionKey(shared.engines[1])).equals(x)).toBe(true);
  });
});

describe('two servers on one PostgreSQL database', () => {
  it('a session signed in on one App is accepted by the other, and signing out on it ends it on the first', async () => {
    const { url } = await freshSchema();
    const engines = [await PostgresEngine.open(url, { max: 2 }), await PostgresEngine.open(url, { max: 2 })];
    const dir = tempDir();
    // Each App needs a file store of its own besides; nothing here reads or writes it.
    const files = await Promise.all(['a', 'b'].map((n) => Store.open(`${dir.dir}/${n}.json`)));
    try {
      const token = 'wcm_pat_adaOnTwoServers0123456789abcdefghijklmn';
      const sha = hashToken(token);
      await engines[0].load(
        ['users', 'tokens'],
        [
          ['users', { id: 'usr_ada', name: 'Ada Lindqvist', email: 'ada@example.com' }],
          [
            'tokens',
            {
              id: tokenId(sha),
              token_sha256: sha,
              user_id: 'usr_ada',
              name: 'pat',
              abilities: ['content:read'],
              expires_at: null,
              revoked_at: null,
            },
          ],
        ],
      );
      const apps = await Promise.all(
        engines.map(async (db) => {
          // As each `wcm serve` does at start: the server key is made once and read by the other.
          const sessions = new Sessions(db, { key: await sessionKey(db) });
          const auth = signIn({ prefix: '/p', loopback: false, sessions });
          const routes: Routes = (r) => {
            auth.routes(r);
            r.mount('/p', async ({ req, info }) => {
              const signed = await auth.requireSession(req, info);
              if (!('user' in signed)) return signed;
              return htmlResponse(200, `hello ${signed.user.name}; csrf ${signed.signOut.csrf}`);
            });
          };
          return new App({ db, routes: [routes] });
        }),
      );
      const send = (app: App, r: { method?: string; url: string; body?: string; cookie?: string }) =>
        app.handle({
          method: r.method ?? 'GET',
          url: r.url,
          headers: {
            host: new URL(app.trust.origin).host,
            ...(r.cookie ? { cookie: r.cookie } : {}),
            ...(r.body ? { 'content-type': 'application/x-www-form-urlencoded', origin: app.trust.origin } : {}),
          },
          body: r.body ?? '',
        });
      const [a, b] = apps;
      const form = await send(a, { url: '/p/sign-in?return_to=%2Fp%2Fhome' });
      const csrf = /name="csrf" value="([^"]+)"/.exec(form.body)![1];
      const pre = form.headers['Set-Cookie'].split(';')[0];
      const signed = await send(a, {
        method: 'POST',
        url: '/p/sign-in?return_to=%2Fp%2Fhome',
        cookie: pre,
        body: new URLSearchParams({ csrf, token }).toString(),
      });
      expect(signed.status).toBe(303);
      const cookie = signed.headers['Set-Cookie'].split(';')[0];
      expect(cookie).toMatch(/^wcm_session=/);
      const onA = await send(a, { url: '/p/home', cookie });
      const onB = await send(b, { url: '/p/home', cookie });
      expect(onB.status).toBe(200);
      expect(onB.body).toContain('hello Ada Lindqvist');
      // The same CSRF token on both: the key is one, kept in the store.
      expect(onB.body).toBe(onA.body);
      const pageCsrf = /csrf (\S+)/.exec(onB.body)![1];
      const out = await send(b, {
        method: 'POST',
        url: '/p/sign-out',
        cookie,
        body: new URLSearchParams({ csrf: pageCsrf }).toString(),
      });
      expect(out.status).toBe(303);
      const after = await send(a, { url: '/p/home', cookie });
      expect(after.status).toBe(303);
      expect(after.headers.Location).toMatch(/^\/p\/sign-in\?return_to=/);
    } finally {
      await Promise.all(engines.map((e) => e.close()));
      await Promise.all(files.map((f) => f.close()));
      dir.cleanup();
    }
  });
});
