// Pruning forgets spent OAuth records (docs/security.md#oauth, issue 33 finding 6): expired access tokens,
// expired codes, families revoked more than 7 days ago, self-registered clients unused for 30 days.
// What is still usable stays. Each prune reads a bounded batch along indexes by time. The real server
// (wcm serve's mounts) and its store.
import { promises as fs } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OAuthPruner, pruneOAuth } from '../../../src/server/oauth/models/prune.js';
import { hashToken, tokenId } from '../../../src/store/fixtures/import.js';
import type { CollectionName } from '../../../src/store/records.js';
import { demo, onPort, TestClock } from '../../support/server.js';

const clock = new TestClock(new Date('2026-11-22T12:00:00.000Z'));
let server: Awaited<ReturnType<typeof onPort>>;
beforeAll(async () => {
  server = await onPort({ clock });
});
afterAll(async () => {
  await server.close();
});

const iso = (days: number) => new Date(clock.now().getTime() + days * 24 * 3600 * 1000).toISOString();
const tok = (text: string, grant: string, expires: string) => {
  const sha = hashToken(text);
  return {
    id: tokenId(sha),
    token_sha256: sha,
    user_id: 'usr_ada',
    name: 't',
    abilities: ['content:read' as const],
    expires_at: expires,
    revoked_at: null,
    audience: 'wcm-api-v1',
    workspace_ids: [demo.ws1],
    grant_id: grant,
    client_id: demo.oauthAppAcme,
  };
};
const grant = (id: string, client: string, revoked: string | null, refreshExpires: string) => ({
  id,
  user_id: 'usr_ada',
  client_id: client,
  abilities: ['content:read' as const],
  workspace_ids: [demo.ws1],
  audience: 'wcm-api-v1',
  refresh_sha256: null,
  refresh_expires_at: refreshExpires,
  refresh_generation: 0,
  created_at: iso(-60),
  revoked_at: revoked,
});
const code = (id: string, expires: string) => ({
  id,
  code_sha256: id.padEnd(64, '0'),
  client_id: demo.oauthAppAcme,
  redirect_uri: 'http://127.0.0.1/cb',
  user_id: 'usr_ada',
  abilities: ['content:read' as const],
  workspace_ids: [demo.ws1],
  resource: '',
  audience: 'wcm-api-v1',
  code_challenge: 'x',
  expires_at: expires,
  used_at: null,
  grant_id: null,
});
const app = (id: string, created: string) => ({
  id,
  name: 'Agent',
  type: 'public' as const,
  redirect_uris: ['http://127.0.0.1/cb'],
  client_secret_sha256: null,
  workspace_id: null,
  created_at: created,
});

it('a prune removes what nobody can use any more and keeps the rest, in the store and in its snapshot', async () => {
  const db = server.db;
  const live = tok('wcm_oat_liveAccessToken0123456789abcdefghijklmn', 'grant_pruneLiveGrant00001', iso(1));
  const expired = tok('wcm_oat_expiredAccessToken0123456789abcdefghij', 'grant_pruneLiveGrant00001', iso(-1));
  const ofOldFamily = tok('wcm_oat_oldFamilyAccessToken0123456789abcdefgh', 'grant_pruneOldRevoked0001', iso(1));
  await db.write(async (tx) => {
    await tx.put('oauth_grants', grant('grant_pruneLiveGrant00001', demo.oauthAppAcme, null, iso(20)));
    await tx.put('oauth_grants', grant('grant_pruneOldRevoked0001', demo.oauthAppAcme, iso(-8), iso(20)));
    await tx.put('oauth_grants', grant('grant_pruneNewRevoked0001', demo.oauthAppAcme, iso(-6), iso(20)));
    // A self-registered client whose only grant was last refreshed 31 days ago, and one used 29 days ago.
    await tx.put('oauth_apps', app('wcm_app_pruneIdleClient000000000000001', iso(-90)));
    await tx.put(
      'oauth_grants',
      grant('grant_pruneIdleClient00001', 'wcm_app_pruneIdleClient000000000000001', null, iso(30 - 31)),
    );
    await tx.put('oauth_apps', app('wcm_app_pruneBusyClient000000000000001', iso(-90)));
    await tx.put(
      'oauth_grants',
      grant('grant_pruneBusyClient00001', 'wcm_app_pruneBusyClient000000000000001', null, iso(30 - 29)),
    );
    for (const t of [live, expired, ofOldFamily]) await tx.put('tokens', t);
    await tx.put('oauth_codes', code('code_pruneExpired00000001', iso(-0.001)));
    await tx.put('oauth_codes', code('code_pruneLive0000000001', iso(0.0005)));
  });
  expect(await pruneOAuth(db)).toMatchObject({ more: false });
  const get = (c: CollectionName, id: string) => db.read((tx) => tx.get(c, id));
  const gone = await Promise.all([
    get('tokens', expired.id),
    get('tokens', ofOldFamily.id),
    get('oauth_grants', 'grant_pruneOldRevoked0001'),
    get('oauth_codes', 'code_pruneExpired00000001'),
    get('oauth_apps', 'wcm_app_pruneIdleClient000000000000001'),
  ]);
  expect(gone).toEqual([undefined, undefined, undefined, undefined, undefined]);
  for (const kept of await Promise.all([
    get('tokens', live.id),
    get('oauth_grants', 'grant_pruneNewRevoked0001'),
    get('oauth_codes', 'code_pruneLive0000000001'),
    get('oauth_apps', 'wcm_app_pruneBusyClient000000000000001'),
    get('oauth_apps', demo.oauthAppAcme),
  ])) {
    expect(kept).toBeDefined();
  }
  // A second prune finds nothing more to remove.
  expect(await pruneOAuth(db)).toMatchObject({ removed: 0, more: false });
  await server.store.compact();
  const snapshot = await fs.readFile(server.store.file, 'utf8');
  expect(snapshot).toContain(live.id);
  expect(snapshot).not.toContain(expired.id);
  expect(snapshot).not.toContain('grant_pruneOldRevoked0001');
  // The live token still authenticates after the prune.
  expect(
    (
      await fetch(`${server.url}/me`, {
        headers: { authorization: 'Bearer wcm_oat_liveAccessToken0123456789abcdefghijklmn' },
      })
    ).status,
  ).toBe(200);
});

it('a prune reads a bounded batch: expired codes beyond it are left for the next', async () => {
  const db = server.db;
  await db.write(async (tx) => {
    for (let i = 0; i < 7; i++)
      await tx.put('oauth_codes', code(`code_pruneBatch${String(i).padStart(9, '0')}`, iso(-1)));
  });
  const first = await pruneOAuth(db, undefined, 5);
  expect(first).toMatchObject({ removed: 5, more: true });
  const second = await pruneOAuth(db, first.cursor, 5);
  expect(second).toMatchObject({ removed: 2, more: false });
  const left = await db.read((tx) => tx.page('oauth_codes', 'oauthCodesByExpiry', { partition: '*', limit: 100 }));
  expect(left.items.filter((c) => c.id.startsWith('code_pruneBatch'))).toEqual([]);
});

it('the server prunes after requests once a prune is due, in the background', async () => {
  const db = server.db;
  await db.write((tx) => tx.put('oauth_codes', code('code_prunePoked00000001', iso(-1))));
  const pruner = new OAuthPruner(db, 0);
  pruner.poke();
  for (let i = 0; i < 100 && (await db.read((tx) => tx.get('oauth_codes', 'code_prunePoked00000001'))); i++)
    await new Promise((r) => setTimeout(r, 20));
  expect(await db.read((tx) => tx.get('oauth_codes', 'code_prunePoked00000001'))).toBeUndefined();
  // Not due yet: a pruner made now waits its interval before the first prune.
  await db.write((tx) => tx.put('oauth_codes', code('code_pruneNotDue00000001', iso(-1))));
  new OAuthPruner(db).poke();
  await new Promise((r) => setTimeout(r, 100));
  expect(await db.read((tx) => tx.get('oauth_codes', 'code_pruneNotDue00000001'))).toBeDefined();
});
