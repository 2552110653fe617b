import { createHash, createHmac } from 'node:crypto';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { App, type Routes } from '../../../src/server/app.js';
import { hashToken, tokenId } from '../../../src/store/fixtures/import.js';
import { html, htmlResponse, layout, messagePage, parseForm } from '../../../src/server/web/html.js';
import { checkCsrf, MAX_SESSIONS, SESSION_COOKIE, sessionKey, Sessions } from '../../../src/server/web/session.js';
import { isLoopbackHost, safeReturnTo, signIn, SIGNIN_CSRF_COOKIE } from '../../../src/server/web/signin.js';
import { ABILITIES } from '../../../src/contract/enums.js';
import { JsonEngine } from '../../../src/store/json/engine.js';
import { moveClock } from '../../support/oauth.js';
import { demo, inProcess, sendJson, tempDir, TestClock, type InProcess } from '../../support/server.js';

const PREFIX = '/web-test';
let env: InProcess | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

/** A mount like the dashboard's: sign-in, one page that needs a session, one form that changes something. */
async function setup(loopback: boolean) {
  const clock = new TestClock();
  env = await inProcess({ clock, storeClock: true });
  const db = env.db;
  const sessions = new Sessions(db);
  const auth = signIn({ prefix: PREFIX, loopback, sessions, purpose: 'to test <things>' });
  const changes: string[] = [];
  const routes: Routes = (r) => {
    auth.routes(r);
    r.mount(PREFIX, async ({ req, info }) => {
      const signed = await auth.requireSession(req, info);
      if (!('user' in signed)) return signed;
      if (info.path === `${PREFIX}/change` && info.method === 'POST') {
        const form = parseForm(info.rawBody);
        if (!checkCsrf(signed.session, form.csrf)) return messagePage(403, 'Refused', 'bad csrf');
        changes.push(form.what);
        return htmlResponse(200, 'changed');
      }
      const limits = html`<p>abilities ${signed.abilities.join(' ')}; workspaces ${signed.workspaceIds?.join(' ') ?? 'all'}</p>`;
      return htmlResponse(
        200,
        layout({
          title: 'Secret',
          body: html`<p>hello ${signed.user.name}</p>${limits}`,
          user: { name: signed.user.name, signOut: signed.signOut },
        }),
      );
    });
  };
  const app = new App({ db, clock, routes: [routes] });
  const send = (r: Parameters<typeof sendJson>[1]) => sendJson(app, r);
  const form = (url: string, fields: Record<string, string>, cookie = '') =>
    send({
      method: 'POST',
      url,
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    });
  /** GET the sign-in page: its pre-sign-in CSRF cookie and the hidden field's value. */
  const signInPage = async (returnTo = `${PREFIX}/secret`) => {
    const res = await send({ url: `${PREFIX}/sign-in?return_to=${encodeURIComponent(returnTo)}` });
    const cookie = /^wcm_csrf=([^;]+)/.exec(res.headers['Set-Cookie'] ?? '')?.[1];
    const field = /name="csrf" value="([^"]+)"/.exec(res.body)?.[1];
    return {
      res,
      cookie: `${SIGNIN_CSRF_COOKIE}=${cookie}`,
      csrf: field!,
      action: /<form method="post" action="([^"]+)"/.exec(res.body)![1].replaceAll('&amp;', '&'),
    };
  };
  const sessionCookie = (res: { headers: Record<string, string> }) =>
    /^wcm_session=([^;]+)/.exec(res.headers['Set-Cookie'] ?? '')?.[1];
  /** Moves the test's clock, and the store's with it. */
  const advance = (ms: number) => moveClock(db, clock, ms);
  return { app, send, form, signInPage, sessions, clock, advance, changes, sessionCookie, db };
}

describe('safeReturnTo', () => {
  it.each([
    ['/web-test/secret', '/web-test/secret'],
    ['/web-test/threads?view=unread&q=a%20b', '/web-test/threads?view=unread&q=a%20b'],
    ['/web-test', '/web-test'],
    ['//evil.example', PREFIX],
    ['//evil.example/web-test/x', PREFIX],
    ['https://evil.example', PREFIX],
    ['https://evil.example/web-test/x', PREFIX],
    ['/web-test/../oauth', PREFIX],
    ['/web-test/%2e%2e/oauth', PREFIX],
    ['/web-test/.%2E/oauth', PREFIX],
    ['/web-test\\..\\oauth', PREFIX],
    ['/\\evil.example', PREFIX],
    ['/web-testx', PREFIX],
    ['/web-test%2f..%2fv1', PREFIX],
    ['javascript:alert(1)', PREFIX],
    ['/web-test/\r\nSet-Cookie: x=y', PREFIX],
    ['', PREFIX],
    [undefined, PREFIX],
  ])('%j → %s', (input, expected) => {
    expect(safeReturnTo(input, PREFIX)).toBe(expected);
  });
});

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['::1', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['0.0.0.0', false],
    ['::', false],
    ['192.168.1.10', false],
    ['128.0.0.1', false],
    ['example.com', false],
    ['localhost.example.com', false],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe('Sessions', () => {
  /**
   * Sessions over an empty JSON file whose clock is `clock` (on PostgreSQL, sessions across two
   * engines: sessions-shared.test.ts).
   */
  let made: { db: JsonEngine; cleanup(): void } | undefined;
  afterEach(async () => {
    await made?.db.close();
    made?.cleanup();
    made = undefined;
  });
  const over = async (clock: TestClock, options?: ConstructorParameters<typeof Sessions>[1]) => {
    const dir = tempDir();
    const db = await JsonEngine.open(path.join(dir.dir, 'store.json'), { clock: () => clock.now().getTime() });
    made = { db, cleanup: dir.cleanup };
    return { db, sessions: new Sessions(db, options) };
  };

  it('sets an HttpOnly, SameSite=Lax cookie for the path, Secure only on https, holding a random id', async () => {
    const clock = new TestClock();
    const { sessions } = await over(clock);
    const { cookie, session } = await sessions.start('usr_ada', '/dashboard', { origin: 'http://127.0.0.1:5000' });
    expect(cookie).toBe(`wcm_session=${session.id}; Path=/dashboard; Max-Age=3600; HttpOnly; SameSite=Lax`);
    expect(session.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.csrf).not.toBe(session.id);
    expect((await sessions.start('usr_ada', '/oauth', { origin: 'https://wcm.example' })).cookie).toMatch(
      /; Path=\/oauth; Max-Age=3600; HttpOnly; SameSite=Lax; Secure$/,
    );
  });

  it('keeps a session as a record named by a hash of its cookie, never the cookie itself', async () => {
    const clock = new TestClock();
    const { db, sessions } = await over(clock);
    const { session } = await sessions.start('usr_ada', '/dashboard', { origin: 'http://x' }, 'tok_1');
    const id = createHash('sha256').update(session.id).digest('base64url');
    const rec = await db.read((tx) => tx.get('sessions', id));
    expect(rec).toEqual({
      id,
      user_id: 'usr_ada',
      expires_at: clock.now().getTime() + 3600_000,
      path: '/dashboard',
      token_id: 'tok_1',
      cookie_at: clock.now().getTime(),
    });
    expect(JSON.stringify(rec)).not.toContain(session.id);
  });

  it('reads the session only under its path, and until it has been idle an hour (by the store clock)', async () => {
    const clock = new TestClock();
    const { sessions } = await over(clock);
    const { session } = await sessions.start('usr_ada', '/dashboard', { origin: 'http://x' });
    const headers = { cookie: `other=1; ${SESSION_COOKIE}=${session.id}` };
    expect((await sessions.read({ headers, path: '/dashboard/workspaces' }))?.userId).toBe('usr_ada');
    expect(await sessions.read({ headers, path: '/oauth/authorize' })).toBeUndefined();
    expect(await sessions.read({ headers, path: '/dashboardx' })).toBeUndefined();
    expect(await sessions.read({ headers: { cookie: `${SESSION_COOKIE}=nope` }, path: '/dashboard' })).toBeUndefined();
    // In use every 59 minutes: alive three hours after it started.
    for (let i = 0; i < 3; i++) {
      clock.advance(3540_000);
      expect(await sessions.read({ headers, path: '/dashboard' })).toBeDefined();
    }
    clock.advance(3599_000);
    expect(await sessions.read({ headers, path: '/dashboard' })).toBeDefined();
    clock.advance(3600_000);
    expect(await sessions.read({ headers, path: '/dashboard' })).toBeUndefined();
    expect(await sessions.count()).toBe(0);
  });

  it('writes the last use of a session at most once a minute: a use within a minute of the last write writes nothing', async () => {
    const clock = new TestClock();
    const { db, sessions } = await over(clock);
    const { session } = await sessions.start('usr_ada', '/dashboard', { origin: 'http://x' });
    const req = { headers: { cookie: `${SESSION_COOKIE}=${session.id}` }, path: '/dashboard' };
    const id = createHash('sha256').update(session.id).digest('base64url');
    const expiry = async () => (await db.read((tx) => tx.get('sessions', id)))!.expires_at;
    const started = clock.now().getTime();
    clock.advance(59_000);
    expect(await sessions.read(req)).toBeDefined();
    expect(await expiry()).toBe(started + 3600_000);
    clock.advance(1_000);
    expect(await sessions.read(req)).toBeDefined();
    expect(await expiry()).toBe(started + 60_000 + 3600_000);
  });

  it('renews the cookie once half its hour has passed while the session is in use, not before', async () => {
    const clock = new TestClock();
    const { sessions } = await over(clock);
    const { session } = await sessions.start('usr_ada', '/dashboard', { origin: 'http://x' });
    const req = { headers: { cookie: `${SESSION_COOKIE}=${session.id}` }, path: '/dashboard' };
    expect(await sessions.renewal(session, { origin: 'http://x' })).toBeUndefined();
    clock.advance(1799_000);
    expect(await sessions.renewal((await sessions.read(req))!, { origin: 'http://x' })).toBeUndefined();
    clock.advance(1_000);
    const due = (await sessions.read(req))!;
    expect(await sessions.renewal(due, { origin: 'http://x' })).toBe(
      `wcm_session=${session.id}; Path=/dashboard; Max-Age=3600; HttpOnly; SameSite=Lax`,
    );
    expect(await sessions.renewal(due, { origin: 'http://x' })).toBeUndefined();
    // Renewed just now: the next use does not renew it again.
    expect(await sessions.renewal((await sessions.read(req))!, { origin: 'http://x' })).toBeUndefined();
  });

  it('keeps at most 10,000 sessions: the 10,001st ends the one idle longest', async () => {
    const clock = new TestClock();
    const { db, sessions } = await over(clock);
    expect(MAX_SESSIONS).toBe(10_000);
    const cookie = (id: string) => ({ headers: { cookie: `${SESSION_COOKIE}=${id}` }, path: '/d' });
    const first = (await sessions.start('u', '/d', { origin: 'http://x' })).session;
    clock.advance(1);
    const second = (await sessions.start('u', '/d', { origin: 'http://x' })).session;
    // The other 9,998, started after these two (loaded at once: 9,998 sign-ins one by one are slow).
    const kept = await db.read(async (tx) => {
      const page = await tx.page('sessions', 'sessionsByExpiry', { partition: '*', limit: 2 });
      return page.items;
    });
    const at = clock.now().getTime() + 1;
    const others = Array.from({ length: MAX_SESSIONS - 2 }, (_, i) => ({
      id: `other-${i}`,
      user_id: 'u',
      expires_at: at + 3600_000,
      path: '/d',
      token_id: null,
      cookie_at: at,
    }));
    await db.load(
      ['sessions'],
      [...kept, ...others].map((r) => ['sessions', r] as const),
    );
    expect(await sessions.count()).toBe(MAX_SESSIONS);
    // The first is used again, a minute on, so the second is now the one idle longest.
    clock.advance(60_000);
    expect(await sessions.read(cookie(first.id))).toBeDefined();
    await sessions.start('u', '/d', { origin: 'http://x' });
    expect(await sessions.count()).toBe(MAX_SESSIONS);
    expect(await sessions.read(cookie(second.id))).toBeUndefined();
    expect(await sessions.read(cookie(first.id))).toBeDefined();
  });

  it('drops expired sessions when a new one starts', async () => {
    const clock = new TestClock();
    const { sessions } = await over(clock);
    for (let i = 0; i < 3; i++) await sessions.start('u', '/d', { origin: 'http://x' });
    clock.advance(3600_000);
    await sessions.start('u', '/d', { origin: 'http://x' });
    expect(await sessions.count()).toBe(1);
  });

  it('derives CSRF tokens from the server key: the same key gives the same tokens, another key others', async () => {
    const clock = new TestClock();
    const { db } = await over(clock);
    const key = await sessionKey(db);
    expect((await db.read((tx) => tx.get('settings', 'session_key')))?.value).toBe(key.toString('base64url'));
    expect((await sessionKey(db)).equals(key)).toBe(true);
    const a = new Sessions(db, { key });
    const b = new Sessions(db, { key: Buffer.from(key) });
    const other = new Sessions(db);
    const nonce = 'n'.repeat(43);
    expect(a.signInCsrf(nonce)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a.signInCsrf(nonce)).toBe(b.signInCsrf(nonce));
    expect(a.signInCsrf(nonce)).not.toBe(other.signInCsrf(nonce));
    expect(a.signInCsrf(nonce)).not.toBe(nonce);
    const { session } = await a.start('u', '/d', { origin: 'http://x' });
    expect(session.csrf).toBe(createHmac('sha256', key).update(`session\0${session.id}`).digest('base64url'));
  });

  it('checkCsrf compares the whole token', async () => {
    const { sessions } = await over(new TestClock());
    const { session } = await sessions.start('u', '/d', { origin: 'http://x' });
    expect(checkCsrf(session, session.csrf)).toBe(true);
    expect(checkCsrf(session, session.csrf.slice(0, -1))).toBe(false);
    expect(checkCsrf(session, '')).toBe(false);
    expect(checkCsrf(session, undefined)).toBe(false);
  });
});

describe('sign-in with the account chooser (loopback)', () => {
  it('redirects a visitor without a session to sign-in, remembering the page', async () => {
    const t = await setup(true);
    const res = await t.send({ url: `${PREFIX}/secret?x=1` });
    expect(res.status).toBe(303);
    expect(res.headers.Location).toBe(`${PREFIX}/sign-in?return_to=${encodeURIComponent(`${PREFIX}/secret?x=1`)}`);
  });

  it('lists the users, signs in by choice and returns to the page', async () => {
    const t = await setup(true);
    const page = await t.signInPage();
    expect(page.res.status).toBe(200);
    expect(page.res.headers['Set-Cookie']).toMatch(
      new RegExp(`^wcm_csrf=[A-Za-z0-9_-]{43}; Path=${PREFIX}; Max-Age=3600; HttpOnly; SameSite=Lax$`),
    );
    expect(page.res.headers['Content-Security-Policy']).toContain("frame-ancestors 'none'");
    for (const name of ['Ada Lindqvist', 'Bo Carter', 'Cy Okafor', 'Dee Moreau']) expect(page.res.body).toContain(name);
    expect(page.res.body).toContain('to test &lt;things&gt;');
    expect(page.res.body).not.toContain('name="token"');
    const res = await t.form(page.action, { csrf: page.csrf, user: 'usr_bo' }, page.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.Location).toBe(`${PREFIX}/secret`);
    const sid = t.sessionCookie(res)!;
    expect(res.headers['Set-Cookie']).toBe(`wcm_session=${sid}; Path=${PREFIX}; Max-Age=3600; HttpOnly; SameSite=Lax`);
    const secret = await t.send({ url: `${PREFIX}/secret`, headers: { cookie: `wcm_session=${sid}` } });
    expect(secret.status).toBe(200);
    expect(secret.body).toContain('hello Bo Carter');
  });

  it.each([
    ['no CSRF field', (_p: { csrf: string }) => ({ user: 'usr_ada' }), true],
    ['a wrong CSRF field', (p: { csrf: string }) => ({ user: 'usr_ada', csrf: `${p.csrf.slice(1)}x` }), true],
    ['no CSRF cookie', (p: { csrf: string }) => ({ user: 'usr_ada', csrf: p.csrf }), false],
  ])('refuses %s with 403 and starts no session', async (_name, fields, withCookie) => {
    const t = await setup(true);
    const page = await t.signInPage();
    const res = await t.form(page.action, fields(page) as Record<string, string>, withCookie ? page.cookie : '');
    expect(res.status).toBe(403);
    expect(res.body).toContain('This form has expired');
    expect(res.headers['Set-Cookie']).toBeUndefined();
    expect(await t.sessions.count()).toBe(0);
  });

  it("refuses a CSRF value the client chose (the same value in cookie and field): the field must be the server's HMAC", async () => {
    const t = await setup(true);
    const chosen = 'A'.repeat(43);
    const page = await t.signInPage();
    const res = await t.form(page.action, { csrf: chosen, user: 'usr_ada' }, `${SIGNIN_CSRF_COOKIE}=${chosen}`);
    expect(res.status).toBe(403);
    expect(res.body).toContain('This form has expired');
    expect(await t.sessions.count()).toBe(0);
    // The page's own field is not the cookie's value either: it is derived from it.
    expect(page.csrf).not.toBe(page.cookie.split('=')[1]);
    // A planted cookie gets a field derived from it, and that pair works: only the server can make it.
    const planted = await t.send({ url: `${PREFIX}/sign-in`, headers: { cookie: `${SIGNIN_CSRF_COOKIE}=${chosen}` } });
    const field = /name="csrf" value="([^"]+)"/.exec(planted.body)![1];
    expect(field).not.toBe(chosen);
    expect(field).toBe(t.sessions.signInCsrf(chosen));
  });

  it('a loopback session has every ability and every workspace of its user', async () => {
    const t = await setup(true);
    const page = await t.signInPage();
    const sid = t.sessionCookie(await t.form(page.action, { csrf: page.csrf, user: 'usr_bo' }, page.cookie))!;
    const secret = await t.send({ url: `${PREFIX}/secret`, headers: { cookie: `wcm_session=${sid}` } });
    expect(secret.body).toContain(`abilities ${ABILITIES.join(' ')}; workspaces all`);
  });

  it('refuses an unknown user with the chooser again', async () => {
    const t = await setup(true);
    const page = await t.signInPage();
    const res = await t.form(page.action, { csrf: page.csrf, user: 'usr_nobody' }, page.cookie);
    expect(res.status).toBe(400);
    expect(res.body).toContain('Choose one of the accounts listed.');
    expect(await t.sessions.count()).toBe(0);
  });

  it.each(['//evil.example', 'https://evil.example', '/web-test/../oauth', '/elsewhere'])(
    'return_to %s lands on the prefix',
    async (returnTo) => {
      const t = await setup(true);
      const page = await t.signInPage(returnTo);
      const res = await t.form(page.action, { csrf: page.csrf, user: 'usr_ada' }, page.cookie);
      expect(res.status).toBe(303);
      expect(res.headers.Location).toBe(PREFIX);
    },
  );

  it('a form that changes something needs the session CSRF token; sign-out too', async () => {
    const t = await setup(true);
    const page = await t.signInPage();
    const sid = t.sessionCookie(await t.form(page.action, { csrf: page.csrf, user: 'usr_ada' }, page.cookie))!;
    const cookie = `wcm_session=${sid}`;
    const home = await t.send({ url: `${PREFIX}/secret`, headers: { cookie } });
    const csrf = /name="csrf" value="([^"]+)"/.exec(home.body)![1];
    expect((await t.form(`${PREFIX}/change`, { what: 'a' }, cookie)).status).toBe(403);
    expect((await t.form(`${PREFIX}/change`, { what: 'b', csrf: 'x' }, cookie)).status).toBe(403);
    expect(t.changes).toEqual([]);
    expect((await t.form(`${PREFIX}/change`, { what: 'c', csrf }, cookie)).status).toBe(200);
    expect(t.changes).toEqual(['c']);

    expect((await t.form(`${PREFIX}/sign-out`, { csrf: 'wrong' }, cookie)).status).toBe(403);
    expect((await t.send({ url: `${PREFIX}/secret`, headers: { cookie } })).status).toBe(200);
    const out = await t.form(`${PREFIX}/sign-out`, { csrf }, cookie);
    expect(out.status).toBe(303);
    expect(out.headers.Location).toBe(`${PREFIX}/sign-in`);
    expect(out.headers['Set-Cookie']).toBe(`wcm_session=; Path=${PREFIX}; Max-Age=0; HttpOnly; SameSite=Lax`);
    expect((await t.send({ url: `${PREFIX}/secret`, headers: { cookie } })).status).toBe(303);
  });

  it('a session ends after an hour by the server clock', async () => {
    const t = await setup(true);
    const page = await t.signInPage();
    const cookie = `wcm_session=${t.sessionCookie(await t.form(page.action, { csrf: page.csrf, user: 'usr_ada' }, page.cookie))}`;
    await t.advance(3600_000);
    expect((await t.send({ url: `${PREFIX}/secret`, headers: { cookie } })).status).toBe(303);
  });
});

describe('sign-in with a personal access token (not loopback)', () => {
  it('asks for a token (no chooser, no user names) and signs in with a valid one', async () => {
    const t = await setup(false);
    const page = await t.signInPage();
    expect(page.res.body).toContain('name="token"');
    expect(page.res.body).toContain('type="password"');
    expect(page.res.body).not.toContain('Bo Carter');
    const res = await t.form(page.action, { csrf: page.csrf, token: demo.owner }, page.cookie);
    expect(res.status).toBe(303);
    const sid = t.sessionCookie(res)!;
    expect(sid).not.toContain(demo.owner);
    expect(JSON.stringify(res.headers)).not.toContain(demo.owner);
    const secret = await t.send({ url: `${PREFIX}/secret`, headers: { cookie: `wcm_session=${sid}` } });
    expect(secret.body).toContain('hello Ada Lindqvist');
    expect(secret.body).not.toContain('wcm_pat_');
  });

  it('the session is limited by the token: its abilities and its workspaces', async () => {
    const t = await setup(false);
    const narrow = 'wcm_pat_boNarrowToAcme0123456789abcdefghijklmn';
    const sha = hashToken(narrow);
    await t.db.write((tx) =>
      tx.put('tokens', {
        id: tokenId(sha),
        token_sha256: sha,
        user_id: 'usr_bo',
        name: 'narrow',
        abilities: ['content:read', 'engagements:read'],
        expires_at: null,
        revoked_at: null,
        workspace_ids: [demo.ws1],
      }),
    );
    for (const [token, want] of [
      [demo.contentReader, 'abilities content:read; workspaces all'],
      [narrow, `abilities content:read engagements:read; workspaces ${demo.ws1}`],
    ]) {
      const page = await t.signInPage();
      const sid = t.sessionCookie(await t.form(page.action, { csrf: page.csrf, token }, page.cookie))!;
      const secret = await t.send({ url: `${PREFIX}/secret`, headers: { cookie: `wcm_session=${sid}` } });
      expect(secret.body).toContain('hello Bo Carter');
      expect(secret.body).toContain(want);
    }
  });

  it.each([
    [
      'revoked',
      async (t: Awaited<ReturnType<typeof setup>>, id: string) => {
        await t.db.write(async (tx) => {
          const rec = (await tx.get('tokens', id))!;
          await tx.put('tokens', { ...rec, revoked_at: '2026-11-22T12:30:00Z' });
        });
      },
    ],
    ['expires', async (t: Awaited<ReturnType<typeof setup>>) => t.advance(21 * 60_000)],
    [
      'is deleted',
      async (t: Awaited<ReturnType<typeof setup>>, id: string) => t.db.write((tx) => tx.delete('tokens', id)),
    ],
  ])('the session ends when its token %s: back to sign-in, saying why, cookie cleared', async (_name, end) => {
    const t = await setup(false);
    const token = 'wcm_pat_boExpiresSoon0123456789abcdefghijklmnop';
    const sha = hashToken(token);
    await t.db.write((tx) =>
      tx.put('tokens', {
        id: tokenId(sha),
        token_sha256: sha,
        user_id: 'usr_bo',
        name: 'soon',
        abilities: ['content:read'],
        expires_at: '2026-11-22T14:00:00Z',
        revoked_at: null,
      }),
    );
    const page = await t.signInPage();
    const sid = t.sessionCookie(await t.form(page.action, { csrf: page.csrf, token }, page.cookie))!;
    const cookie = `wcm_session=${sid}`;
    // Used every 50 minutes, so idleness is not what ends it.
    for (let i = 0; i < 2; i++) {
      await t.advance(50 * 60_000);
      expect((await t.send({ url: `${PREFIX}/secret`, headers: { cookie } })).status).toBe(200);
    }
    await end(t, tokenId(sha));
    const res = await t.send({ url: `${PREFIX}/secret?x=1`, headers: { cookie } });
    expect(res.status).toBe(303);
    expect(res.headers.Location).toBe(
      `${PREFIX}/sign-in?return_to=${encodeURIComponent(`${PREFIX}/secret?x=1`)}&ended=token`,
    );
    expect(res.headers['Set-Cookie']).toBe(`wcm_session=; Path=${PREFIX}; Max-Age=0; HttpOnly; SameSite=Lax`);
    expect(await t.sessions.count()).toBe(0);
    const again = await t.send({ url: res.headers.Location });
    expect(again.body).toContain(
      'Your session ended: the personal access token you signed in with was revoked or expired.',
    );
  });

  it('ignores a chosen user: off loopback only a token proves who you are', async () => {
    const t = await setup(false);
    const page = await t.signInPage();
    const res = await t.form(page.action, { csrf: page.csrf, user: 'usr_ada' }, page.cookie);
    expect(res.status).toBe(403);
    expect(await t.sessions.count()).toBe(0);
  });

  it.each([
    ['revoked', demo.revoked, 'has been revoked'],
    ['expired', demo.expired, 'expired at 2025-01-01T00:00:00'],
    ['unknown', 'wcm_pat_thisTokenDoesNotExist0123456789abcdefghij', 'not recognised'],
    ['an OAuth access token', 'wcm_oat_someOAuthAccessToken0123456789abcdefgh', 'OAuth tokens cannot be used'],
    ['an OAuth-bound record', 'wcm_pat_boundToAnAudience0123456789abcdefghijk', 'OAuth tokens cannot be used'],
    ['not a token', 'hello', 'start with <code>wcm_pat_</code>'],
    ['empty', '', 'Enter a personal access token'],
  ])('refuses %s with 403, says why, and keeps nothing of it in the page', async (_name, token, why) => {
    const t = await setup(false);
    await t.db.write(async (tx) => {
      for (const tk of [
        'wcm_oat_someOAuthAccessToken0123456789abcdefgh',
        'wcm_pat_boundToAnAudience0123456789abcdefghijk',
      ]) {
        const sha = hashToken(tk);
        await tx.put('tokens', {
          id: tokenId(sha),
          token_sha256: sha,
          user_id: 'usr_ada',
          name: 'oauth',
          abilities: ['content:read'],
          expires_at: null,
          revoked_at: null,
          audience: 'wcm-api-v1',
          workspace_ids: [demo.ws1],
        });
      }
    });
    const page = await t.signInPage();
    const res = await t.form(page.action, { csrf: page.csrf, token }, page.cookie);
    expect(res.status).toBe(403);
    expect(res.body).toContain(why);
    if (token.length > 8) expect(res.body).not.toContain(token);
    expect(res.headers['Set-Cookie']).toBeUndefined();
    expect(await t.sessions.count()).toBe(0);
  });

  it('refuses a form with a field given twice (400) and other methods (405)', async () => {
    const t = await setup(false);
    const page = await t.signInPage();
    const res = await t.send({
      method: 'POST',
      url: page.action,
      body: `csrf=${page.csrf}&token=a&token=b`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
    });
    expect(res.status).toBe(400);
    expect(res.body).toContain('`token`');
    expect((await t.send({ method: 'PUT', url: `${PREFIX}/sign-in` })).status).toBe(405);
    expect((await t.send({ method: 'GET', url: `${PREFIX}/sign-out` })).status).toBe(405);
  });
});

describe('the extend step', () => {
  it.each([
    [undefined, true],
    ['127.0.0.1', true],
    ['::1', true],
    ['0.0.0.0', false],
  ])('--host %s: loopback %s, one Sessions and the /assets mount', async (host, loopback) => {
    const { extendServer } = await import('../../../src/server/extend.js');
    // An empty JSON file on either project: the step's areas, not the store, are under test.
    const dir = tempDir();
    const db = await JsonEngine.open(path.join(dir.dir, 'store.json'));
    try {
      const ext = await extendServer({
        db,
        clock: new TestClock(),
        options: { dataFile: 'x', host, payments: 'local', env: {} },
      });
      expect(ext.services?.loopback).toBe(loopback);
      expect(ext.services?.sessions).toBeInstanceOf(Sessions);
      const app = new App({ db, routes: ext.routes });
      expect((await sendJson(app, { url: '/assets/wcm.css' })).status).toBe(200);
    } finally {
      await db.close();
      dir.cleanup();
    }
  });
});
