// Access tokens name their grant instead of copying it, and a refresh's token response is one small
// record that also holds the refresh token issued with it (docs/security.md#oauth, issue 33 finding 6). What a
// token may do is still read from stored records (docs/security.md#oauth); the shape stored before keeps
// working; restarts, compaction and exports keep the current refresh token. The real server on a
// loopback port, its store in a temp dir, the grant flow's own functions.
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { exchangeCode } from '../../../src/server/oauth/grants/authorization-code.js';
import { refreshTokens } from '../../../src/server/oauth/grants/refresh-token.js';
import { findClient, type Client } from '../../../src/server/oauth/models/client.js';
import { issueCode } from '../../../src/server/oauth/models/code.js';
import { exportDocument, hashToken, importRecords, parseFixture, tokenId } from '../../../src/store/fixtures/import.js';
import type { StoreEngine } from '../../../src/store/engine/interface.js';
import { JsonEngine } from '../../../src/store/json/engine.js';
import { PostgresEngine } from '../../../src/store/postgres/engine.js';
import { Store } from '../../../src/store/json/store.js';
import { pruneOAuth } from '../../../src/server/oauth/models/prune.js';
import { moveClock, pkce, resetClock, storeNow, tokenRequest } from '../../support/oauth.js';
import { demo, onPort, tempDir, TestClock } from '../../support/server.js';
import { REUSE_WINDOW_MS } from '../../../src/server/oauth/models/grant.js';

const START = new Date('2026-11-22T12:00:00.000Z');
const clock = new TestClock(START);
const ALL = [
  'workspaces:read',
  'workspaces:write',
  'content:read',
  'content:write',
  'engagements:read',
  'engagements:manage',
  'actions:request',
] as const;
let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;

beforeAll(async () => {
  server = await onPort({ clock });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server.close();
});
beforeEach(async () => {
  await resetClock(server.db, clock, START);
});

/** A code of `client` for Ada, exchanged: the grant's first tokens. */
async function newGrant(db: StoreEngine, clientId: string = demo.oauthAppAcme, workspaces: string[] = [demo.ws1]) {
  const client = (await db.read((tx) => findClient(tx, clientId)))!;
  const { verifier, challenge } = pkce();
  const redirect = client.redirect_uris[0];
  const code = await issueCode(db, {
    client_id: client.id,
    redirect_uri: redirect,
    user_id: 'usr_ada',
    abilities: [...ALL],
    workspace_ids: workspaces,
    resource: '',
    audience: 'wcm-api-v1',
    code_challenge: challenge,
  });
  const first = await exchangeCode(db, client, {
    code,
    redirect_uri: redirect,
    code_verifier: verifier,
    origin,
  });
  return { client, first };
}

/** Refreshes `times` times; the last answer. */
async function refreshed(db: StoreEngine, client: Client, token: string, times: number) {
  let t = await refreshTokens(db, client, { refresh_token: token, origin });
  for (let i = 1; i < times; i++) t = await refreshTokens(db, client, { refresh_token: t.refresh_token, origin });
  return t;
}

const stored = (db: StoreEngine, token: string) => db.read((tx) => tx.get('tokens', tokenId(hashToken(token))));
/** The JSON engine over a store of the test's own, on the test's clock. */
const engineOf = (store: Store) => new JsonEngine(store, { clock: () => clock.now().getTime() });
const me = async (token: string) => {
  const res = await fetch(`${server.url}/me`, { headers: { authorization: `Bearer ${token}` } });
  const json = (await res.json()) as Record<string, any>;
  return { status: res.status, data: json.data, detail: json.detail as string | undefined };
};

describe('tokens that name their grant', () => {
  it('a refresh stores one record naming the grant; /v1 reads user, abilities, workspaces and audience from the grant', async () => {
    const { client, first } = await newGrant(server.db);
    const narrowed = await refreshTokens(server.db, client, {
      refresh_token: first.refresh_token,
      scope: 'content:read',
      origin,
    });
    const rec = (await stored(server.db, narrowed.access_token))!;
    expect(Object.keys(rec).sort()).toEqual(
      ['abilities', 'expires_at', 'generation', 'grant_id', 'id', 'refresh_sha256', 'token_sha256'].sort(),
    );
    expect(rec.abilities).toEqual(['content:read']);
    // The first token copies nothing either: all the grant's abilities, so none of its own.
    expect(await stored(server.db, first.access_token)).not.toHaveProperty('abilities');
    const full = await me(first.access_token);
    expect(full.status).toBe(200);
    expect(full.data.user.id).toBe('usr_ada');
    expect(full.data.token).toMatchObject({ kind: 'oauth', name: 'Acme helpdesk agent', abilities: [...ALL] });
    expect(full.data.workspaces.map((w: { id: string }) => w.id)).toEqual([demo.ws1]);
    expect((await me(narrowed.access_token)).data.token.abilities).toEqual(['content:read']);
    const write = await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
      method: 'POST',
      headers: { authorization: `Bearer ${narrowed.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'narrowed', template_slug: 'faq' }),
    });
    expect(write.status).toBe(403);
    expect(((await write.json()) as { code: string }).code).toBe('insufficient_ability');
  });

  it('revoking a grant ends at once every token of it: refreshed ones that name it, and ones stored with copies of it before', async () => {
    const { client, first } = await newGrant(server.db, demo.oauthAppAcme, [demo.ws1, demo.ws2]);
    const later = await refreshed(server.db, client, first.refresh_token, 2);
    expect(await stored(server.db, later.access_token)).not.toHaveProperty('user_id');
    const grant = (await stored(server.db, later.access_token))!.grant_id!;
    // A token as it was stored before tokens named their grant: with copies of it.
    const copied = 'wcm_oat_adaAcmeCopiedShape0123456789abcdefghij';
    const inAnHour = (await storeNow(server.db)) + 3600_000; // 13:00 on the test's clock
    const sha = hashToken(copied);
    await server.db.write((tx) =>
      tx.put('tokens', {
        id: tokenId(sha),
        token_sha256: sha,
        user_id: 'usr_ada',
        name: 'Acme helpdesk agent',
        abilities: ['content:read'],
        expires_at: new Date(inAnHour).toISOString(),
        revoked_at: null,
        audience: 'wcm-api-v1',
        workspace_ids: [demo.ws2],
        grant_id: grant,
        client_id: demo.oauthAppAcme,
      }),
    );
    const before = await me(copied);
    expect(before.status).toBe(200);
    expect(before.data.token.abilities).toEqual(['content:read']);
    expect(before.data.workspaces.map((w: { id: string }) => w.id)).toEqual([demo.ws2]);
    expect((await me(later.access_token)).status).toBe(200);
    const revoke = await fetch(`${server.url}/me/oauth-grants/${grant}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${demo.owner}` },
    });
    expect(revoke.status).toBe(200);
    for (const t of [first.access_token, later.access_token, copied])
      expect(await me(t)).toMatchObject({ status: 401, detail: 'The bearer token is revoked.' });
    const again = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: later.refresh_token,
      client_id: client.id,
    });
    expect([again.status, again.json.error_description]).toEqual([400, 'The refresh token has been revoked.']);
  });

  it('a confidential client revokes its own access token (RFC 7009): the token names only its grant, whose client it is', async () => {
    const { first } = await newGrant(server.db, demo.oauthAppBlueFern, [demo.ws2]);
    expect(await stored(server.db, first.access_token)).not.toHaveProperty('client_id');
    const own = await tokenRequest(
      origin,
      { token: first.access_token },
      { path: '/oauth/revoke', basic: [demo.oauthAppBlueFern, demo.oauthAppBlueFernSecret] },
    );
    expect(own.status).toBe(200);
    expect((await stored(server.db, first.access_token))!.revoked_at).not.toBeNull();
    expect((await me(first.access_token)).status).toBe(401);
  });
});

describe('the current refresh token survives', () => {
  it('pruning: expired access tokens go, but not the token response that holds the current refresh token', async () => {
    const { client, first } = await newGrant(server.db);
    const one = await refreshed(server.db, client, first.refresh_token, 1);
    const three = await refreshed(server.db, client, one.refresh_token, 2);
    await moveClock(server.db, clock, 2 * 3600 * 1000);
    await pruneOAuth(server.db);
    expect(await Promise.all([first, one].map((t) => stored(server.db, t.access_token)))).toEqual([
      undefined,
      undefined,
    ]);
    expect(await stored(server.db, three.access_token)).toMatchObject({ generation: 3 });
    expect((await me(three.access_token)).status).toBe(401);
    const four = await refreshTokens(server.db, client, { refresh_token: three.refresh_token, origin });
    expect((await me(four.access_token)).status).toBe(200);
    await expect(refreshTokens(server.db, client, { refresh_token: one.refresh_token, origin })).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('already used'),
    });
  });

  /** What a restart reopens: the JSON engine over the data file written again; on PostgreSQL another engine on the database. */
  async function restarted(): Promise<{ before: StoreEngine; reopen(): Promise<StoreEngine>; close(): Promise<void> }> {
    if (server.db.kind === 'postgres') {
      const engines: StoreEngine[] = [];
      return {
        before: server.db,
        reopen: async () => {
          const e = await PostgresEngine.open(server.storeUrl!);
          engines.push(e);
          return e;
        },
        close: async () => {
          for (const e of engines) await e.close();
        },
      };
    }
    const { dir, cleanup } = tempDir();
    const file = path.join(dir, 'store.json');
    const copy = await Store.open(file);
    await importRecords(copy, parseFixture(await exportDocument(server.store), 'server'));
    let reopened: Store | undefined;
    return {
      before: engineOf(copy),
      reopen: async () => {
        await copy.close();
        reopened = await Store.open(file);
        return engineOf(reopened);
      },
      close: async () => {
        await copy.close();
        await reopened?.close();
        cleanup();
      },
    };
  }

  it('a restart: the store reopened finds the current refresh token, and an earlier one is a replay', async () => {
    const restart = await restarted();
    try {
      const { client, first } = await newGrant(restart.before);
      const two = await refreshed(restart.before, client, first.refresh_token, 2);
      const db = await restart.reopen();
      // The grant is as the exchange wrote it; the state came back with the token responses' index.
      expect(await stored(db, two.access_token)).toMatchObject({ generation: 2 });
      const grantId = (await stored(db, two.access_token))!.grant_id!;
      expect(await db.read((tx) => tx.get('oauth_grants', grantId))).toMatchObject({ refresh_generation: 0 });
      const three = await refreshTokens(db, client, { refresh_token: two.refresh_token, origin });
      expect(three.refresh_token).toMatch(/_3_/);
      await moveClock(db, clock, REUSE_WINDOW_MS); // past the reuse window of the rotation
      await expect(refreshTokens(db, client, { refresh_token: two.refresh_token, origin })).rejects.toMatchObject({
        description: expect.stringContaining('already used'),
      });
    } finally {
      await restart.close();
    }
  });

  // Exports read the JSON store's records (fixtures/export.ts); on PostgreSQL snapshots are table copies.
  it.skipIf(process.env.WCM_TEST_STORE === 'postgres')(
    'an export (as emulator snapshots save) carries the current refresh token, and imports into a working store',
    async () => {
      const { client, first } = await newGrant(server.db);
      const two = await refreshed(server.db, client, first.refresh_token, 2);
      const fixture = (await exportDocument(server.store)) as { oauth_grants: Array<Record<string, unknown>> };
      const grant = (await stored(server.db, two.access_token))!.grant_id!;
      // In the store the grant still says generation 0 (a refresh does not rewrite it); the export says 2.
      expect((await server.db.read((tx) => tx.get('oauth_grants', grant)))!.refresh_generation).toBe(0);
      expect(fixture.oauth_grants.find((g) => g.id === grant)).toMatchObject({
        refresh_generation: 2,
        refresh_sha256: hashToken(two.refresh_token),
      });
      const { dir, cleanup } = tempDir();
      const copy = await Store.open(path.join(dir, 'store.json'));
      try {
        await importRecords(copy, parseFixture(fixture, 'export'));
        expect(JSON.stringify(await exportDocument(copy))).toBe(JSON.stringify(fixture));
        const db = engineOf(copy);
        const three = await refreshTokens(db, client, { refresh_token: two.refresh_token, origin });
        expect(three.refresh_token).toMatch(/_3_/);
        await expect(refreshTokens(db, client, { refresh_token: first.refresh_token, origin })).rejects.toMatchObject({
          description: expect.stringContaining('already used'),
        });
      } finally {
        await copy.close();
        cleanup();
      }
    },
  );
});
