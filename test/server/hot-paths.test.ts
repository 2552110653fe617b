import { afterEach, describe, expect, it } from 'vitest';
import { newRequestId } from '../../src/server/ids.js';
import { plainTarget } from '../../src/server/request.js';
import { isoTime } from '../../src/server/context.js';
import { hashToken, tokenId } from '../../src/store/fixtures/import.js';
import { App } from '../../src/server/app.js';
import type { Store } from '../../src/store/json/store.js';
import { demo, fileStoreOf, inProcess, onPort, sendJson, type InProcess } from '../support/server.js';

// The per-request shortcuts of the hot paths (cached token digests, list pages sent from cached
// bytes through reused send buffers) must not change a single answer.

let s: InProcess | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

describe('token digests cached per Authorization header', () => {
  it('revoking, expiring or deleting a token takes effect on the very next request with the same header', async () => {
    s = await inProcess();
    const url = `/v1/workspaces/${demo.ws1}/threads`;
    expect((await s.request({ url, token: demo.owner })).status).toBe(200);
    const id = tokenId(hashToken(demo.owner));
    const rec = s.store.get('tokens', id)!;
    await s.store.transact((tx) => tx.put('tokens', { ...rec, revoked_at: '2024-01-01T00:00:00.000Z' }));
    const revoked = await s.request({ url, token: demo.owner });
    expect(revoked.status).toBe(401);
    expect(revoked.body).toContain('revoked');
    await s.store.transact((tx) => tx.put('tokens', { ...rec, expires_at: '2000-01-01T00:00:00.000Z' }));
    expect((await s.request({ url, token: demo.owner })).body).toContain('expired');
    await s.store.transact((tx) => tx.delete('tokens', id));
    expect((await s.request({ url, token: demo.owner })).body).toContain('not recognised');
    await s.store.transact((tx) => tx.put('tokens', rec));
    expect((await s.request({ url, token: demo.owner })).status).toBe(200);
  });

  it('malformed and unknown headers answer as before, however often they are sent', async () => {
    s = await inProcess();
    const url = `/v1/workspaces/${demo.ws1}/threads`;
    for (let i = 0; i < 3; i++) {
      const bad = await s.request({ url, headers: { authorization: 'Basic abc' } });
      expect(bad.status).toBe(401);
      expect(bad.body).toContain('malformed');
      const unknown = await s.request({ url, token: 'wcm_pat_nobodyHasThisToken' });
      expect(unknown.body).toContain('not recognised');
    }
  });

  it('stays bounded under many distinct headers', async () => {
    s = await inProcess();
    const url = `/v1/workspaces/${demo.ws1}/threads`;
    for (let i = 0; i < 1500; i++) expect((await s.request({ url, token: `wcm_pat_x${i}` })).status).toBe(401);
    expect((await s.request({ url, token: demo.owner })).status).toBe(200);
  });
});

describe('list pages over HTTP', () => {
  it('send exactly the in-process bytes, with the right Content-Length, page after page (GET and HEAD)', async () => {
    const srv = await onPort();
    s = await inProcess();
    try {
      let path = `/workspaces/${demo.ws1}/threads?limit=2`;
      for (let page = 0; page < 20 && path; page++) {
        const headers = { authorization: `Bearer ${demo.owner}`, 'x-request-id': `req_page${page}` };
        const [http, head] = await Promise.all([
          fetch(srv.url + path, { headers }),
          fetch(srv.url + path, { method: 'HEAD', headers }),
        ]);
        const bytes = Buffer.from(await http.arrayBuffer());
        expect(http.status).toBe(200);
        expect(Number(http.headers.get('content-length'))).toBe(bytes.length);
        expect(head.headers.get('content-length')).toBe(http.headers.get('content-length'));
        const local = await s.request({
          url: `/v1${path}`,
          token: demo.owner,
          headers: { 'x-request-id': `req_page${page}` },
        });
        expect(bytes.toString('utf8')).toBe(local.body);
        const next = JSON.parse(local.body).meta.next_cursor;
        path = next ? `/workspaces/${demo.ws1}/threads?limit=2&cursor=${next}` : '';
      }
    } finally {
      await srv.close();
      srv.cleanup();
    }
  });
});

describe('request targets read without a URL parser', () => {
  const viaUrl = (t: string) => {
    const u = new URL(`http://localhost${t.replace(/^\/+/, '/')}`, 'http://localhost');
    return { pathname: u.pathname, search: u.search };
  };
  // Plain targets take the shortcut and read exactly as URL reads them.
  it.each([
    '/v1/workspaces/02ff152c-0fdc-4f12-aa16-9e5eb2f38b96/lists',
    '/v1/workspaces/w/threads?view=inbox&channel=whatsapp&limit=50',
    '/v1/workspaces/w/threads/',
    '/v1/a.b/c~d/e_f-g',
    '/',
    '/v1?',
    '/v1/x?a=1&a=2&b=%20c+d&e=f?g&h=(i)*',
  ])('%s', (t) => {
    const plain = plainTarget(t);
    expect(plain).not.toBeNull();
    expect(plain).toEqual(viaUrl(t));
  });
  // Anything URL would normalize or encode is left to URL.
  it.each([
    '//v1/workspaces',
    '/v1/./workspaces',
    '/v1/../v1/workspaces',
    '/v1/.well-known',
    '/v1/caf%C3%A9',
    '/v1/a b',
    '/v1\\workspaces',
    '/v1/x?a="b"',
    '/v1/x?a=b#frag',
    '/v1/x?a b',
    'http://localhost/v1/me',
    '*',
  ])('%s is not taken as plain', (t) => {
    expect(plainTarget(t)).toBeNull();
  });

  it('no query, an empty query and a query of separators only answer alike (the shared empty query)', async () => {
    s = await inProcess();
    const base = `/v1/workspaces/${demo.ws1}/lists`;
    const bodies: string[] = [];
    for (const q of ['', '?', '?&', '?&&']) {
      const res = await s.request({ url: base + q, token: demo.owner, headers: { 'x-request-id': 'req_same' } });
      expect(res.status).toBe(200);
      bodies.push(res.body);
    }
    expect(new Set(bodies).size).toBe(1);
    const unknown = await s.request({ url: `${base}?nope=1`, token: demo.owner });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.json.errors)).toEqual(['nope']);
  });

  it('a repeated or unknown query parameter still answers 422 through the shortcut', async () => {
    s = await inProcess();
    const twice = await s.request({ url: `/v1/workspaces/${demo.ws1}/lists?limit=2&limit=3`, token: demo.owner });
    expect(twice.status).toBe(422);
    expect(twice.json.errors).toEqual({ limit: ['Given more than once.'] });
  });
});

describe('stored token digests decoded once per record', () => {
  it('a token record replaced with another digest under the same id stops the old token at once', async () => {
    s = await inProcess();
    const url = `/v1/workspaces/${demo.ws1}/lists`;
    expect((await s.request({ url, token: demo.owner })).status).toBe(200);
    const id = tokenId(hashToken(demo.owner));
    const rec = s.store.get('tokens', id)!;
    const other = `${rec.token_sha256.slice(0, 60)}${rec.token_sha256.endsWith('0000') ? 'ffff' : '0000'}`;
    await s.store.transact((tx) => tx.put('tokens', { ...rec, token_sha256: other }));
    const res = await s.request({ url, token: demo.owner });
    expect(res.status).toBe(401);
    expect(res.body).toContain('not recognised');
    await s.store.transact((tx) => tx.put('tokens', { ...rec }));
    expect((await s.request({ url, token: demo.owner })).status).toBe(200);
  });
});

describe('thread list items cached per index entry', () => {
  it('a thread rewritten under the same id lists as rewritten, on the seeded store and after a restart on its index stubs', async () => {
    s = await inProcess();
    const url = `/v1/workspaces/${demo.ws1}/threads?limit=100`;
    const subjects = async (app: App) =>
      new Map(
        ((await sendJson(app, { url, token: demo.owner })).json.data as Array<{ id: string; subject: string }>).map(
          (t) => [t.id, t.subject],
        ),
      );
    const rewrite = async (store: Store, id: string, subject: string) => {
      const thread = store.get('threads', id)!;
      await store.transact((tx) => tx.put('threads', { ...thread, subject }));
    };
    const before = await subjects(s.app);
    const [first, second] = [...before.keys()];
    expect(before.size).toBeGreaterThan(2);
    await rewrite(s.store, first, 'Rewritten in memory');
    const after = await subjects(s.app);
    expect(after.get(first)).toBe('Rewritten in memory');
    expect(after.get(second)).toBe(before.get(second));

    // A restart keeps the threads as index stubs until read: the items cached on the stubs go too.
    const db = await s.reopen();
    const store = fileStoreOf(db);
    try {
      const app = new App({ db });
      expect((await subjects(app)).get(first)).toBe('Rewritten in memory');
      await rewrite(store, second, 'Rewritten after the restart');
      const again = await subjects(app);
      expect(again.get(second)).toBe('Rewritten after the restart');
      expect(again.get(first)).toBe('Rewritten in memory');
    } finally {
      await store.close();
    }
  });
});

describe('timestamps formatted once per second', () => {
  it('isoTime gives exactly what toISOString gives, in any order of calls', () => {
    const base = Date.UTC(2026, 10, 22, 12, 34, 56);
    const times = [
      base,
      base + 1,
      base + 9,
      base + 10,
      base + 99,
      base + 100,
      base + 999,
      base + 1000,
      base + 7,
      base - 1,
      base - 1000,
      base,
      0,
      1,
      -1,
      -999,
      -1000,
      -1001,
      951782400000 /* 2000-02-29 */,
      253402300799999 /* 9999-12-31T23:59:59.999Z */,
      253402300800000 /* +010000 */,
      253402300800123,
      -62198755200000 /* year 0 */,
      -62198755199877,
    ];
    for (const t of times) expect(isoTime(new Date(t))).toBe(new Date(t).toISOString());
    // The same second again, after other seconds: the cached prefix follows the second asked for.
    expect(isoTime(new Date(base + 500))).toBe('2026-11-22T12:34:56.500Z');
    expect(isoTime(new Date(base + 1500))).toBe('2026-11-22T12:34:57.500Z');
    expect(isoTime(new Date(base + 1005))).toBe('2026-11-22T12:34:57.005Z');
  });

  it('an invalid date throws as toISOString does', () => {
    expect(() => isoTime(new Date(Number.NaN))).toThrow(RangeError);
    // And does not poison the cache.
    expect(isoTime(new Date(5))).toBe('1970-01-01T00:00:00.005Z');
  });
});

describe('request ids', () => {
  it('are req_ and 20 base-62 characters, and do not repeat', () => {
    const ids = Array.from({ length: 2000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9]{20}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
