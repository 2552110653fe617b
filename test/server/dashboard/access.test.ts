// docs/security.md#signing-in-on-pages: off loopback a dashboard session is limited by the personal access token it signed
// in with: the sections its abilities read, the workspaces it reaches, and no longer than it lives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, tokenId } from '../../../src/store/fixtures/import.js';
import { dashboardEnv, type DashboardEnv } from '../../support/dashboard.js';
import { demo } from '../../support/server.js';

const ws = (w: string, rest = '') => `/dashboard/workspaces/${w}${rest}`;
/** Bo's token for Acme Coffee only, reading workspaces and content. */
const BO_ACME_ONLY = 'wcm_pat_boAcmeOnlyWorkspacesContent0123456789ab';

const ENGAGEMENT_PAGES = ['/threads', `/threads/${demo.newestThread}`, '/bookings', '/voice', '/orders', '/events'];
const CONTENT_PAGES = [
  '/lists',
  '/forms',
  `/forms/${demo.formCatering}`,
  '/pages',
  '/knowledge',
  `/knowledge/${demo.knowledgeList}`,
];

let env: DashboardEnv;
let bo: string; // content:read, all three workspaces
let cy: string; // engagements:read and :manage
let boAcme: string;
beforeAll(async () => {
  env = await dashboardEnv({ loopback: false });
  const sha = hashToken(BO_ACME_ONLY);
  await env.app.db.write((tx) =>
    tx.put('tokens', {
      id: tokenId(sha),
      token_sha256: sha,
      user_id: 'usr_bo',
      name: 'acme',
      abilities: ['workspaces:read', 'content:read'],
      expires_at: null,
      revoked_at: null,
      workspace_ids: [demo.ws1],
    }),
  );
  bo = await env.signInWith(demo.contentReader);
  cy = await env.signInWith(demo.support);
  boAcme = await env.signInWith(BO_ACME_ONLY);
});
afterAll(() => env.close());

/** The side bar's links. */
const navLinks = (body: string) =>
  [...(/<nav class="side"[^>]*>([\s\S]*?)<\/nav>/.exec(body)?.[1] ?? '').matchAll(/<a href="([^"]+)"/g)].map(
    (m) => m[1],
  );

describe('a session of a content:read token', () => {
  it.each(ENGAGEMENT_PAGES)('%s is 403, naming the missing ability and what the token has', async (rest) => {
    const res = await env.page(ws(demo.ws1, rest), bo);
    expect(res.status).toBe(403);
    expect(res.body).toContain('This page needs the <code>engagements:read</code> ability');
    expect(res.body).toContain('has: <code>content:read</code>');
    expect(res.body).not.toContain('Large order for Friday');
  });

  it('the OAuth section is 403 for want of workspaces:read', async () => {
    const res = await env.page(ws(demo.ws1, '/oauth'), bo);
    expect(res.status).toBe(403);
    expect(res.body).toContain('<code>workspaces:read</code>');
    expect(res.body).not.toContain('Acme helpdesk agent');
  });

  it.each(CONTENT_PAGES)('%s answers 200', async (rest) => {
    expect((await env.page(ws(demo.ws1, rest), bo)).status).toBe(200);
  });

  it('open/{id} does not say what a record of a section it cannot read is: 403, no redirect', async () => {
    const thread = await env.page(ws(demo.ws1, `/open/${demo.newestThread}`), bo);
    expect(thread.status).toBe(403);
    expect(thread.headers.Location).toBeUndefined();
    expect(thread.body).toContain('<code>engagements:read</code>');
    const form = await env.page(ws(demo.ws1, `/open/${demo.formCatering}`), bo);
    expect([form.status, form.headers.Location]).toEqual([303, ws(demo.ws1, `/forms/${demo.formCatering}`)]);
  });

  it('the side bar, the overview and the workspace list show only what it reads', async () => {
    const overview = await env.page(ws(demo.ws1), bo);
    expect(overview.status).toBe(200);
    const links = navLinks(overview.body);
    expect(links).toContain(ws(demo.ws1));
    expect(links).toContain(ws(demo.ws1, '/lists'));
    expect(links).toContain(ws(demo.ws1, '/knowledge'));
    for (const hidden of ['/threads', '/bookings', '/voice', '/orders', '/events', '/oauth'])
      expect(links).not.toContain(ws(demo.ws1, hidden));
    // Cards: content counts only; no thread counts; no member list (workspaces:read).
    expect(overview.body).toContain('>Listings</span>');
    expect(overview.body).not.toContain('>Open threads</span>');
    expect(overview.body).not.toContain('>Orders</span>');
    expect(overview.body).not.toContain('<h2>Members</h2>');
    const home = await env.page('/dashboard', bo);
    expect(home.body).toContain('Listings');
    expect(home.body).not.toContain('Open threads');
    for (const name of ['Acme Coffee', 'Blue Fern Studio', 'Civic Help Desk']) expect(home.body).toContain(name);
  });
});

describe('a session of an engagements token', () => {
  it('reads the inbox but not content', async () => {
    expect((await env.page(ws(demo.ws1, '/threads'), cy)).status).toBe(200);
    const lists = await env.page(ws(demo.ws1, '/lists'), cy);
    expect(lists.status).toBe(403);
    expect(lists.body).toContain('<code>content:read</code>');
    expect(lists.body).toContain('has: <code>engagements:read, engagements:manage</code>');
  });
});

describe('a session of a token narrowed to one workspace', () => {
  it("lists only that workspace; the others are 404 like a stranger's", async () => {
    const home = await env.page('/dashboard', boAcme);
    expect(home.body).toContain('Acme Coffee');
    expect(home.body).not.toContain('Blue Fern Studio');
    expect(home.body).not.toContain('Civic Help Desk');
    for (const w of [demo.ws2, demo.ws3]) {
      const res = await env.page(ws(w, '/lists'), boAcme);
      expect(res.status).toBe(404);
      expect(res.body).toContain('No workspace of yours has this id.');
    }
    const overview = await env.page(ws(demo.ws1), boAcme);
    expect(overview.body).toContain('<h2>Members</h2>');
  });
});

describe('the session ends with its token', () => {
  it('a revoked token signs its session out at the next page', async () => {
    const token = 'wcm_pat_boRevokedWhileSignedIn0123456789abcdef';
    const sha = hashToken(token);
    await env.app.db.write((tx) =>
      tx.put('tokens', {
        id: tokenId(sha),
        token_sha256: sha,
        user_id: 'usr_bo',
        name: 'x',
        abilities: ['content:read'],
        expires_at: null,
        revoked_at: null,
      }),
    );
    const cookie = await env.signInWith(token);
    expect((await env.page(ws(demo.ws1, '/lists'), cookie)).status).toBe(200);
    await env.app.db.write(async (tx) => {
      const rec = (await tx.get('tokens', tokenId(sha)))!;
      await tx.put('tokens', { ...rec, revoked_at: '2026-11-22T12:00:00Z' });
    });
    const res = await env.page(ws(demo.ws1, '/lists'), cookie);
    expect(res.status).toBe(303);
    expect(res.headers.Location).toMatch(/^\/dashboard\/sign-in\?return_to=.*&ended=token$/);
    expect((await env.page(ws(demo.ws1, '/lists'), cookie)).headers.Location).not.toContain('ended=token');
  });
});
