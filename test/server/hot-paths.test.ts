import { afterEach, describe, expect, it } from 'vitest';
import { hashToken, tokenId } from '../../src/store/fixture.js';
import { demo, inProcess, onPort, type InProcess } from '../support/server.js';

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
        const [http, head] = await Promise.all([fetch(srv.url + path, { headers }), fetch(srv.url + path, { method: 'HEAD', headers })]);
        const bytes = Buffer.from(await http.arrayBuffer());
        expect(http.status).toBe(200);
        expect(Number(http.headers.get('content-length'))).toBe(bytes.length);
        expect(head.headers.get('content-length')).toBe(http.headers.get('content-length'));
        const local = await s.request({ url: `/v1${path}`, token: demo.owner, headers: { 'x-request-id': `req_page${page}` } });
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
