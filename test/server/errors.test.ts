import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../src/server/app.js';
import { errorLog } from '../../src/server/error-log.js';
import { API_AUDIENCE } from '../../src/server/auth.js';
import { DEMO, demo, inProcess, tempDir, type InProcess } from '../support/server.js';
import { expectProblem } from '../support/problem.js';

const oauthGranted = 'wcm_oat_grantedWs2Only0123456789abcdefghijklmnop';
const oauthWrongAudience = 'wcm_oat_otherAudience0123456789abcdefghijklmnopq';
const unknown = 'wcm_pat_unknownToken0123456789abcdefghijklmnopqr';

let s: InProcess;
let fixtureDir: ReturnType<typeof tempDir>;
beforeAll(async () => {
  fixtureDir = tempDir();
  const oauth = path.join(fixtureDir.dir, 'oauth.json');
  // OAuth tokens of usr_ada (a member of ws1 and ws2): one granted only ws2, one for another audience.
  writeFileSync(
    oauth,
    JSON.stringify({
      version: 1,
      tokens: [
        {
          token: oauthGranted,
          user_id: 'usr_ada',
          name: 'mcp',
          abilities: ['content:read', 'content:write'],
          audience: API_AUDIENCE,
          workspace_ids: [demo.ws2],
        },
        {
          token: oauthWrongAudience,
          user_id: 'usr_ada',
          name: 'other',
          abilities: ['content:read'],
          audience: 'https://elsewhere.example',
          workspace_ids: [demo.ws1, demo.ws2],
        },
      ],
    }),
  );
  s = await inProcess({ fixtures: [DEMO, oauth] });
});
afterAll(async () => {
  await s.close();
  fixtureDir.cleanup();
});

const lists = (ws: string = demo.ws1, base = '/v1') => `${base}/workspaces/${ws}/lists`;
const good = { title: 'FAQ', template_slug: 'faq' };

describe('400 invalid_json', () => {
  it.each([
    ['truncated JSON', Buffer.from('{"title": "FAQ"')],
    ['not JSON at all', Buffer.from('title=FAQ')],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ['an empty body declared as JSON', Buffer.alloc(0)],
  ])('%s', async (_name, body) => {
    const res = await s.request({
      method: 'POST',
      url: lists(),
      token: demo.owner,
      headers: { 'content-type': 'application/json' },
      body,
    });
    expectProblem(res, 400, 'invalid_json', lists());
  });

  it('names invalid UTF-8 in the detail', async () => {
    const res = await s.request({
      method: 'POST',
      url: lists(),
      token: demo.owner,
      headers: { 'content-type': 'application/json' },
      body: Buffer.from([0x7b, 0xc3, 0x28, 0x7d]),
    });
    expect(expectProblem(res, 400, 'invalid_json').detail).toMatch(/UTF-8/);
  });
});

describe('400 invalid_cursor', () => {
  let cursor: string;
  beforeAll(async () => {
    const res = await s.request({ url: `${lists()}?limit=2`, token: demo.owner });
    expect(res.status).toBe(200);
    cursor = res.json.meta.next_cursor;
    expect(typeof cursor).toBe('string');
  });

  const flip = (c: string, i: number) => c.slice(0, i) + (c[i] === 'A' ? 'B' : 'A') + c.slice(i + 1);
  it.each([
    ['a character flipped at the start', (c: string) => flip(c, 0)],
    ['a character flipped in the middle', (c: string) => flip(c, Math.floor(c.length / 2))],
    ['a character flipped at the end', (c: string) => flip(c, c.length - 1)],
    ['truncated', (c: string) => c.slice(0, c.length - 5)],
    ['characters outside base64url', (c: string) => `${c}!*`],
    ['base64url of something else', () => Buffer.from('[["2026-01-01",null],"x"]').toString('base64url')],
    ['far too long (a valid cursor repeated)', (c: string) => c.repeat(20)],
  ])('%s', async (_name, tamper) => {
    const bad = tamper(cursor);
    expect(bad).not.toBe(cursor);
    const res = await s.request({ url: `${lists()}?cursor=${encodeURIComponent(bad)}`, token: demo.owner });
    const p = expectProblem(res, 400, 'invalid_cursor', lists());
    expect(p.errors).toEqual({ cursor: ['Invalid cursor.'] });
  });

  it("refuses a cursor of another workspace's list", async () => {
    const res = await s.request({ url: `${lists(demo.ws2)}?cursor=${cursor}`, token: demo.owner });
    expectProblem(res, 400, 'invalid_cursor');
  });

  it('accepts the untampered cursor', async () => {
    const res = await s.request({ url: `${lists()}?limit=2&cursor=${cursor}`, token: demo.owner });
    expect(res.status).toBe(200);
  });
});

describe('401 and 403', () => {
  it('401 unauthenticated with WWW-Authenticate: Bearer when no token is sent', async () => {
    const res = await s.request({ url: lists() });
    expectProblem(res, 401, 'unauthenticated');
    expect(res.headers['WWW-Authenticate']).toMatch(/^Bearer\b/);
  });

  it.each([
    ['an unknown token', `Bearer ${unknown}`],
    ['a revoked token', `Bearer ${demo.revoked}`],
    ['an expired token', `Bearer ${demo.expired}`],
    ['a malformed header (no scheme)', demo.owner],
    ['a malformed header (Basic)', 'Basic dXNlcjpwYXNz'],
    ['a malformed header (two words)', `Bearer ${demo.owner} extra`],
    ['an OAuth token for another audience', `Bearer ${oauthWrongAudience}`],
  ])('401 invalid_token for %s', async (_name, authorization) => {
    const res = await s.request({ url: lists(), headers: { authorization } });
    expectProblem(res, 401, 'invalid_token');
    expect(res.headers['WWW-Authenticate']).toMatch(/^Bearer\b/);
  });

  it('names why a token is refused', async () => {
    const details = await Promise.all(
      [demo.revoked, demo.expired, oauthWrongAudience].map(
        async (t) => (await s.request({ url: lists(), token: t })).json.detail,
      ),
    );
    expect(details[0]).toMatch(/revoked/);
    expect(details[1]).toMatch(/expired/);
    expect(details[2]).toMatch(/audience/);
  });

  it('403 insufficient_ability names the ability', async () => {
    const res = await s.request({ method: 'POST', url: lists(), token: demo.contentReader, json: good });
    const p = expectProblem(res, 403, 'insufficient_ability');
    expect(p.detail).toContain('`content:write`');
  });

  it('403 not_a_member for a user outside the workspace', async () => {
    const res = await s.request({ url: lists(demo.ws1), token: demo.ciWriter });
    expectProblem(res, 403, 'not_a_member');
  });

  it('403 not_a_member for an OAuth token without a grant for the workspace', async () => {
    const res = await s.request({ url: lists(demo.ws1), token: oauthGranted });
    const p = expectProblem(res, 403, 'not_a_member');
    expect(p.detail).toMatch(/grant/);
  });

  it('lets the OAuth token into the workspace it was granted', async () => {
    const res = await s.request({ url: lists(demo.ws2), token: oauthGranted });
    expect(res.status).toBe(200);
  });

  it('403 not_a_member for a well-formed workspace that does not exist (no probing)', async () => {
    const res = await s.request({ url: lists('00000000-0000-4000-8000-000000000000'), token: demo.owner });
    expectProblem(res, 403, 'not_a_member');
  });
});

describe('404, 405', () => {
  it.each([
    ['an unknown path under /v1', '/v1/nothing-here'],
    ['an unknown path under /api/v1', '/api/v1/workspaces'],
    ['a path outside the API', '/v2/workspaces'],
    ['the root', '/'],
  ])('404 route_not_found for %s', async (_name, url) => {
    const res = await s.request({ url, token: demo.owner });
    expectProblem(res, 404, 'route_not_found', url);
  });

  // (`%00`, U+0000, is 400 bad_request in any text, ids included: test/server/nul-text.test.ts.)
  it.each(['not-a-uuid', '775050e9-98e8-4600-8d0f', '%20', '775050e9-98e8-4600-8d0f-afce4b67e137x'])(
    '404 workspace_not_found for the malformed workspace id %s',
    async (id) => {
      const res = await s.request({ url: `/v1/workspaces/${id}/lists`, token: demo.owner });
      expectProblem(res, 404, 'workspace_not_found');
    },
  );

  it('405 method_not_allowed with Allow', async () => {
    const res = await s.request({ method: 'DELETE', url: lists(), token: demo.owner });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.Allow.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
  });

  it('405 on /v1/openapi.json for POST, with Allow: GET', async () => {
    const res = await s.request({ method: 'POST', url: '/v1/openapi.json' });
    expectProblem(res, 405, 'method_not_allowed');
    expect(res.headers.Allow).toBe('GET');
  });
});

describe('413, 415, 422', () => {
  it('413 payload_too_large for a body over 1 MiB handed to the app directly', async () => {
    const body = Buffer.from(JSON.stringify({ title: 'x'.repeat(1024 * 1024), template_slug: 'faq' }));
    const res = await s.request({
      method: 'POST',
      url: lists(),
      token: demo.owner,
      headers: { 'content-type': 'application/json' },
      body,
    });
    expectProblem(res, 413, 'payload_too_large');
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['form encoding', 'application/x-www-form-urlencoded'],
    ['no Content-Type', undefined],
  ])('415 unsupported_media_type for %s', async (_name, type) => {
    const headers: Record<string, string> = type ? { 'content-type': type } : {};
    const res = await s.request({
      method: 'POST',
      url: lists(),
      token: demo.owner,
      headers,
      body: JSON.stringify(good),
    });
    expectProblem(res, 415, 'unsupported_media_type');
  });

  it('accepts application/json with a charset', async () => {
    const res = await s.request({
      method: 'POST',
      url: lists(),
      token: demo.owner,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(good),
    });
    expect(res.status).toBe(201);
  });

  it('422 names every failing field path and every unknown member, nested ones included', async () => {
    const res = await s.request({
      method: 'POST',
      url: lists(),
      token: demo.owner,
      json: {
        title: 'x'.repeat(256),
        template_slug: 'no-such-template',
        items: [{ title: '', colour: 'red' }, { description: 5 }],
        extra: true,
        button_id: null,
      },
    });
    const p = expectProblem(res, 422, 'validation_failed');
    expect(Object.keys(p.errors).sort()).toEqual([
      'button_id',
      'extra',
      'items.0.colour',
      'items.0.title',
      'items.1.description',
      'items.1.title',
      'template_slug',
      'title',
    ]);
    for (const msgs of Object.values(p.errors)) {
      expect(Array.isArray(msgs)).toBe(true);
      expect((msgs as string[]).length).toBeGreaterThan(0);
    }
    expect(p.errors.extra).toEqual(['Unknown field: not part of this operation.']);
    expect(p.errors.title).toEqual(['Must be at most 255 characters.']);
  });

  it.each([
    ['an array', '[]'],
    ['a string', '"FAQ"'],
    ['null', 'null'],
  ])('422 when the body is %s, not an object', async (_name, text) => {
    const res = await s.request({
      method: 'POST',
      url: lists(),
      token: demo.owner,
      headers: { 'content-type': 'application/json' },
      body: text,
    });
    expectProblem(res, 422, 'validation_failed');
  });

  it('422 for an unknown query parameter, naming it', async () => {
    const res = await s.request({ url: `${lists()}?limt=5`, token: demo.owner });
    expect(Object.keys(expectProblem(res, 422, 'validation_failed').errors)).toEqual(['limt']);
  });
});

describe('500 and 501', () => {
  it('500 internal_error without a stack trace, message or file path; the error log sees the error', async () => {
    const seen: unknown[] = [];
    const app = new App({
      db: s.db,
      handlers: {
        listListings: () => {
          throw new Error('secret failure in /home/dev/wcm/src/server/handlers/listings.ts:42');
        },
      },
      around: [errorLog((err) => seen.push(err))],
    });
    const res = await app.handle({ method: 'GET', url: lists(), headers: { authorization: `Bearer ${demo.owner}` } });
    const p = expectProblem(res, 500, 'internal_error', lists());
    expect(res.body).not.toMatch(/secret|\/home|\.ts|at |Error:/);
    expect(Object.keys(p.errors)).toEqual([]);
    expect(seen).toHaveLength(1);
    expect((seen[0] as Error).message).toMatch(/secret failure/);
  });

  it('500 also for a handler that rejects asynchronously', async () => {
    const app = new App({
      db: s.db,
      handlers: { listListings: async () => Promise.reject(new TypeError('x is undefined')) },
    });
    const res = await app.handle({ method: 'GET', url: lists(), headers: { authorization: `Bearer ${demo.owner}` } });
    expectProblem(res, 500, 'internal_error');
    expect(res.body).not.toMatch(/undefined|TypeError/);
  });

  it('501 not_implemented for an operation of the table without a handler', async () => {
    const app = new App({ db: s.db, handlers: {} });
    const res = await app.handle({ method: 'GET', url: lists(), headers: { authorization: `Bearer ${demo.owner}` } });
    const p = expectProblem(res, 501, 'not_implemented');
    expect(p.detail).toContain('listListings');
  });
});

describe('X-Request-Id', () => {
  it.each([
    ['a simple id', 'abc-123', true],
    ['the full alphabet', 'A.b_c-9', true],
    ['128 characters', 'a'.repeat(128), true],
    ['129 characters', 'a'.repeat(129), false],
    ['a space', 'abc 123', false],
    ['a slash', 'abc/123', false],
    ['an empty value', '', false],
  ])('%s: echoed=%s', async (_name, id, echoed) => {
    for (const req of [{ url: lists(), token: demo.owner }, { url: lists() }, { url: '/v1/nowhere' }]) {
      const res = await s.request({ ...req, headers: { 'x-request-id': id } });
      const bodyId = res.json.meta?.request_id ?? res.json.request_id;
      expect(res.headers['X-Request-Id']).toBe(bodyId);
      if (echoed) expect(bodyId).toBe(id);
      else expect(bodyId).toMatch(/^req_[A-Za-z0-9]{20}$/);
    }
  });

  it('makes a fresh id per request when none is sent', async () => {
    const a = await s.request({ url: lists(), token: demo.owner });
    const b = await s.request({ url: lists(), token: demo.owner });
    expect(a.json.meta.request_id).toMatch(/^req_/);
    expect(a.json.meta.request_id).not.toBe(b.json.meta.request_id);
  });
});
