// Who may manage OAuth grants and applications (docs/security.md#oauth, issue 33 findings 4 and 5): a personal
// token, never an OAuth token, whatever the token's text looks like; another member's application
// is deleted by an owner only. The real server (on the run's store) and its App, called without a socket.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildTools } from '../../../src/mcp/tools.js';
import { hashToken, tokenId } from '../../../src/store/fixtures/import.js';
import { demo, onPort, sendJson } from '../../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
const s = {
  request: (r: Parameters<typeof sendJson>[1]) => sendJson(server.app, r),
};
beforeEach(async () => {
  server = await onPort();
});
afterEach(async () => {
  await server.close();
});

/** Every OAuth application of the demo's workspaces and self-registered ones, and every grant of them. */
const oauthRecords = () =>
  server.db.read(async (tx) => {
    const out: unknown[] = [];
    const clients = ['wcm-cli'];
    for (const partition of [demo.ws1, demo.ws2, demo.ws3, '']) {
      const apps = await tx.page('oauth_apps', 'oauthAppsByWorkspace', { partition, limit: 1000 });
      out.push(...apps.items);
      clients.push(...apps.items.map((a) => a.id));
    }
    for (const partition of clients)
      out.push(...(await tx.page('oauth_grants', 'oauthGrantsByClient', { partition, limit: 1000 })).items);
    return JSON.stringify(out);
  });

const MANAGEMENT = [
  ['GET', '/v1/me/oauth-grants'],
  ['DELETE', `/v1/me/oauth-grants/${demo.grantAda}`],
  ['GET', `/v1/workspaces/${demo.ws2}/oauth-apps`],
  ['POST', `/v1/workspaces/${demo.ws2}/oauth-apps`],
  ['DELETE', `/v1/workspaces/${demo.ws2}/oauth-apps/${demo.oauthAppBlueFern}`],
] as const;
const NEW_APP = { name: 'Sync', redirect_uris: ['https://sync.example/cb'], type: 'public' };

/** Stores a token record by hand: `text` is what the caller sends, the record says what it is. */
async function putToken(text: string, extra: Record<string, unknown>) {
  const sha = hashToken(text);
  await server.db.write((tx) =>
    tx.put('tokens', {
      id: tokenId(sha),
      token_sha256: sha,
      user_id: 'usr_ada',
      name: 'hand-made',
      abilities: ['workspaces:read', 'workspaces:write'],
      expires_at: null,
      revoked_at: null,
      ...extra,
    }),
  );
}

describe('grant and application management by an OAuth token', () => {
  it.each(MANAGEMENT)('%s %s: 403 personal_token_required, and nothing changes', async (method, url) => {
    const before = await oauthRecords();
    expect(before).toContain(demo.grantAda);
    const res = await s.request({
      method,
      url,
      token: demo.oauthBlueFernOnly,
      json: method === 'POST' ? NEW_APP : undefined,
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'personal_token_required', status: 403 });
    expect(res.json.detail).toContain('personal access token');
    expect(await oauthRecords()).toBe(before);
  });

  it('a personal token of the same user still lists and revokes its grants', async () => {
    const list = await s.request({ url: '/v1/me/oauth-grants', token: demo.owner });
    expect(list.status).toBe(200);
    expect(list.json.data.map((g: { id: string }) => g.id)).toContain(demo.grantAda);
    const del = await s.request({ method: 'DELETE', url: `/v1/me/oauth-grants/${demo.grantAda}`, token: demo.owner });
    expect(del.status).toBe(200);
  });

  it('an OAuth record whose token text looks personal is still an OAuth token: refused here, bound to its audience', async () => {
    const text = 'wcm_pat_handMadeOAuthRecord0123456789abcdefghij';
    await putToken(text, { audience: 'wcm-mcp', workspace_ids: [demo.ws1] });
    expect((await s.request({ url: '/v1/me/oauth-grants', token: text })).status).not.toBe(200);
    const me = await s.request({ url: '/v1/me', token: text });
    expect(me.status).toBe(401);
    expect(me.json.detail).toContain('issued for another audience');
    const api = 'wcm_pat_handMadeApiRecord0123456789abcdefghijklm';
    await putToken(api, { audience: 'wcm-api-v1', workspace_ids: [demo.ws2], abilities: ['content:read'] });
    expect((await s.request({ url: '/v1/me/oauth-grants', token: api })).json.code).toBe('personal_token_required');
    expect((await s.request({ url: `/v1/workspaces/${demo.ws1}/lists`, token: api })).json.code).toBe('not_a_member');
  });

  it('the five operations are not MCP tools, whatever the abilities', () => {
    const names = buildTools({ abilities: null }).map((t) => t.name);
    for (const n of ['listOAuthGrants', 'revokeOAuthGrant', 'listOAuthApps', 'createOAuthApp', 'deleteOAuthApp'])
      expect(names).not.toContain(n);
    expect(names).toContain('listThreads');
  });
});

describe('deleting an application', () => {
  it("another member's application needs the owner role: 403 owner_required for Ada, a member of Blue Fern; the app stays", async () => {
    const res = await s.request({
      method: 'DELETE',
      url: `/v1/workspaces/${demo.ws2}/oauth-apps/${demo.oauthAppBlueFern}`,
      token: demo.owner,
    });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ code: 'owner_required' });
    expect(res.json.detail).toContain('`member`');
    expect(await server.db.read((tx) => tx.get('oauth_apps', demo.oauthAppBlueFern))).toBeDefined();
  });

  it('her own application in the same workspace she may delete; in a workspace she owns, any', async () => {
    const created = await s.request({
      method: 'POST',
      url: `/v1/workspaces/${demo.ws2}/oauth-apps`,
      token: demo.owner,
      json: NEW_APP,
    });
    expect(created.status).toBe(201);
    const own = await s.request({
      method: 'DELETE',
      url: `/v1/workspaces/${demo.ws2}/oauth-apps/${created.json.data.client_id}`,
      token: demo.owner,
    });
    expect(own.status, JSON.stringify(own.json)).toBe(200);
    const owned = await s.request({
      method: 'DELETE',
      url: `/v1/workspaces/${demo.ws1}/oauth-apps/${demo.oauthAppAcme}`,
      token: demo.owner,
    });
    expect(owned.status).toBe(200);
  });
});
