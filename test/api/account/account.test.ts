import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTING_TEMPLATES } from '../../../src/api/listings/schemas.js';
import { API_AUDIENCE } from '../../../src/server/auth.js';
import { DEMO, demo, inProcess, tempDir, type InProcess } from '../../support/server.js';
import { expectProblem } from '../../support/problem.js';

const oauth = 'wcm_oat_meGrantedWs2Only0123456789abcdefghijklmn';
let s: InProcess;
let dir: ReturnType<typeof tempDir>;
beforeAll(async () => {
  dir = tempDir();
  const file = path.join(dir.dir, 'oauth.json');
  writeFileSync(
    file,
    JSON.stringify({
      version: 1,
      tokens: [
        {
          token: oauth,
          user_id: 'usr_ada',
          name: 'mcp',
          abilities: ['content:read'],
          audience: API_AUDIENCE,
          workspace_ids: [demo.ws2],
        },
      ],
    }),
  );
  s = await inProcess({ fixtures: [DEMO, file] });
});
afterAll(async () => {
  await s.close();
  dir.cleanup();
});

describe('GET /v1/me', () => {
  it('returns the user, the token and every workspace the user is a member of, with roles', async () => {
    const res = await s.request({ url: '/v1/me', token: demo.owner });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      user: { id: 'usr_ada', name: 'Ada Lindqvist', email: 'ada@acme-coffee.example' },
      token: {
        name: 'demo-owner',
        kind: 'personal',
        expires_at: null,
        abilities: [
          'workspaces:read',
          'workspaces:write',
          'content:read',
          'content:write',
          'engagements:read',
          'engagements:manage',
          'actions:request',
        ],
      },
      workspaces: [
        { id: demo.ws1, name: 'Acme Coffee', role: 'owner' },
        { id: demo.ws2, name: 'Blue Fern Studio', role: 'member' },
      ],
    });
    expect(res.headers['Cache-Control']).toBe('no-store');
  });

  it('works with any valid token, whatever its abilities', async () => {
    const res = await s.request({ url: '/v1/me', token: demo.support });
    expect(res.status).toBe(200);
    expect(res.json.data.token.abilities).toEqual(['engagements:read', 'engagements:manage']);
    expect(res.json.data.token.expires_at).toBe('2027-12-31T23:59:59.000Z');
    expect(res.json.data.workspaces.map((w: { id: string }) => w.id)).toEqual([demo.ws1, demo.ws2, demo.ws3]);
  });

  it('an OAuth token sees only the workspaces it was granted', async () => {
    const res = await s.request({ url: '/v1/me', token: oauth });
    expect(res.status).toBe(200);
    expect(res.json.data.token.kind).toBe('oauth');
    expect(res.json.data.workspaces).toEqual([{ id: demo.ws2, name: 'Blue Fern Studio', role: 'member' }]);
  });

  it.each([
    ['no token', undefined, 401, 'unauthenticated'],
    ['an expired token', demo.expired, 401, 'invalid_token'],
    ['a revoked token', demo.revoked, 401, 'invalid_token'],
  ])('%s is refused', async (_n, token, status, code) => {
    expectProblem(await s.request({ url: '/v1/me', token }), status, code, '/v1/me');
  });

  it('never shows the token or its hash', async () => {
    const res = await s.request({ url: '/v1/me', token: demo.owner });
    expect(res.body).not.toContain(demo.owner);
    expect(res.body).not.toMatch(/[0-9a-f]{64}/);
  });
});

describe('GET /v1/setup/listing-templates', () => {
  it('lists the whole catalog on one page by default', async () => {
    const res = await s.request({ url: '/v1/setup/listing-templates', token: demo.ciWriter });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual(LISTING_TEMPLATES);
    expect(res.json.data.map((t: { slug: string }) => t.slug).sort()).toEqual(
      expect.arrayContaining(['faq', 'hours', 'links', 'menu', 'pricing', 'services', 'team']),
    );
    expect(res.json.meta.next_cursor).toBeNull();
  });

  it('pages with limit and cursor: 3 + 3 + 1, no duplicates', async () => {
    const slugs: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await s.request({
        url: `/v1/setup/listing-templates?limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        token: demo.support,
      });
      expect(res.status).toBe(200);
      sizes.push(res.json.data.length);
      slugs.push(...res.json.data.map((t: { slug: string }) => t.slug));
      cursor = res.json.meta.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([3, 3, 1]);
    expect(slugs).toEqual(LISTING_TEMPLATES.map((t) => t.slug));
  });

  it('any valid token will do; none is 401', async () => {
    expect((await s.request({ url: '/v1/setup/listing-templates', token: oauth })).status).toBe(200);
    expectProblem(await s.request({ url: '/v1/setup/listing-templates' }), 401, 'unauthenticated');
  });

  it.each([
    ['limit=0', 422, 'validation_failed'],
    ['cursor=garbage', 400, 'invalid_cursor'],
  ])('%s', async (q, status, code) => {
    expectProblem(await s.request({ url: `/v1/setup/listing-templates?${q}`, token: demo.owner }), status, code);
  });
});

describe('GET /healthz', () => {
  it('answers {"status":"ok"} without a token', async () => {
    const res = await s.request({ url: '/healthz' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
  });
});
