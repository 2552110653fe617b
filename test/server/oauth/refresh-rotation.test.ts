// Refresh rotation keeps one generation counter per grant (docs/security.md#oauth, issue 33 finding 6): the
// store grows by the same bytes per refresh however many came before, and a replayed earlier generation still
// revokes the whole family. Real store in a temp dir, the grant flow's own functions.
import { promises as fs } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exchangeCode } from '../../../src/server/oauth/grants/authorization-code.js';
import { refreshTokens } from '../../../src/server/oauth/grants/refresh-token.js';
import { findClient } from '../../../src/server/oauth/models/client.js';
import { issueCode } from '../../../src/server/oauth/models/code.js';
import { OAuthError } from '../../../src/server/oauth/errors.js';
import { hashToken, tokenId } from '../../../src/store/fixtures/import.js';
import { refreshStateOf } from '../../../src/store/oauth-tokens.js';
import { authenticate } from '../../../src/server/auth.js';
import { sessionKey } from '../../../src/server/web/session.js';
import { pkce } from '../../support/oauth.js';
import { demo, inProcess, TestClock, type InProcess } from '../../support/server.js';

const clock = new TestClock(new Date('2026-11-22T12:00:00.000Z'));
const ORIGIN = 'http://127.0.0.1:4010';
let env: InProcess;

beforeEach(async () => {
  env = await inProcess({ clock });
});
afterEach(async () => {
  await env.close();
});

/** A fresh grant of the demo app for Ada (all seven abilities, two workspaces): its first tokens. */
async function newGrant() {
  const client = (await env.app.db.read((tx) => findClient(tx, demo.oauthAppAcme)))!;
  const { verifier, challenge } = pkce();
  const code = await issueCode(env.app.db, {
    client_id: client.id,
    redirect_uri: 'http://127.0.0.1/callback',
    user_id: 'usr_ada',
    abilities: [
      'workspaces:read',
      'workspaces:write',
      'content:read',
      'content:write',
      'engagements:read',
      'engagements:manage',
      'actions:request',
    ],
    workspace_ids: [demo.ws1, demo.ws2],
    resource: '',
    audience: 'wcm-api-v1',
    code_challenge: challenge,
  });
  const first = await exchangeCode(env.app.db, client, {
    code,
    redirect_uri: 'http://127.0.0.1/callback',
    code_verifier: verifier,
    origin: ORIGIN,
  });
  return { client, first };
}

/** The journal's written bytes (the file is preallocated with zeros past its last line). */
const journalBytes = async () => {
  await env.store.drain();
  const buf = await fs.readFile(env.store.journalFile);
  return buf.lastIndexOf(0x0a) + 1;
};

describe('refresh rotation with a generation counter', () => {
  it('1,000 refreshes of one grant add 370 KB to the journal, the same bytes each (1.28 KB before): 10,000 add 3.7 MB (< 5 MB, docs/security.md#oauth); the grant is never rewritten', async () => {
    const { client, first } = await newGrant();
    const grantId = env.store.get('tokens', tokenId(hashToken(first.access_token)))!.grant_id!;
    const grantBefore = env.store.get('oauth_grants', grantId);
    let refresh = first.refresh_token;
    const sizes: number[] = [];
    const before = await journalBytes();
    for (let i = 1; i <= 1000; i++) {
      refresh = (await refreshTokens(env.app.db, client, { refresh_token: refresh, origin: ORIGIN })).refresh_token;
      if (i % 250 === 0) sizes.push((await journalBytes()) - before);
    }
    const perRefresh = sizes[3] / 1000;
    console.log(
      `journal growth: ${sizes.join(', ')} bytes after 250/500/750/1,000 refreshes (${perRefresh.toFixed(0)} B each)`,
    );
    // One record per refresh (the token response), about 370 B: 10,000 refreshes (the sequence number
    // and offset on each line a digit longer) stay under 10,000 × 400 B = 4 MB, within the 5 MB docs/security.md#oauth allows.
    expect(perRefresh).toBeLessThan(400);
    expect(perRefresh * 10_000).toBeLessThan(5_000_000);
    // Linear, not quadratic: each quarter adds the same bytes as the first (within 2%).
    for (let q = 1; q < 4; q++) expect(Math.abs(sizes[q] - sizes[q - 1] - sizes[0]) / sizes[0]).toBeLessThan(0.02);
    // The grant record is as the code exchange wrote it; its current generation is its newest token response's.
    expect(env.store.get('oauth_grants', grantId)).toBe(grantBefore);
    const journal = (await fs.readFile(env.store.journalFile)).subarray(before).toString('utf8');
    expect(journal).not.toContain('"oauth_grants"');
    expect(refreshStateOf(env.store, grantBefore!).generation).toBe(1000);
    expect(refresh).toMatch(new RegExp(`^wcm_ort_${grantId.slice('grant_'.length)}_1000_`));
  });

  it('a replayed earlier generation revokes the family: the current refresh and access tokens stop working', async () => {
    const { client, first } = await newGrant();
    const second = await refreshTokens(env.app.db, client, {
      refresh_token: first.refresh_token,
      origin: ORIGIN,
    });
    const third = await refreshTokens(env.app.db, client, {
      refresh_token: second.refresh_token,
      origin: ORIGIN,
    });
    // Generation 0, two rotations back: a replay.
    const replay = refreshTokens(env.app.db, client, { refresh_token: first.refresh_token, origin: ORIGIN });
    await expect(replay).rejects.toMatchObject({
      error: 'invalid_grant',
      description: expect.stringContaining('already used'),
    });
    await expect(
      refreshTokens(env.app.db, client, { refresh_token: third.refresh_token, origin: ORIGIN }),
    ).rejects.toBeInstanceOf(OAuthError);
    await expect(authenticate(env.app.db, `Bearer ${third.access_token}`)).rejects.toThrow(/revoked/);
  });

  it('a forged token of the current generation, or a later one, is unknown and revokes nothing', async () => {
    const { client, first } = await newGrant();
    const [, grantPart, gen] = /^wcm_ort_([A-Za-z0-9]+)_(\d+)_/.exec(first.refresh_token)!;
    for (const forged of [
      `wcm_ort_${grantPart}_${gen}_${'A'.repeat(40)}`,
      `wcm_ort_${grantPart}_7_${'A'.repeat(40)}`,
    ]) {
      await expect(refreshTokens(env.app.db, client, { refresh_token: forged, origin: ORIGIN })).rejects.toMatchObject({
        error: 'invalid_grant',
        description: 'The refresh token is not recognised.',
      });
    }
    const next = await refreshTokens(env.app.db, client, { refresh_token: first.refresh_token, origin: ORIGIN });
    expect(next.refresh_token).toMatch(new RegExp(`^wcm_ort_${grantPart}_1_[A-Za-z0-9]{40}$`));
  });

  it('a forged token of an earlier generation (someone who knows only the grant id) is unknown and revokes nothing', async () => {
    await sessionKey(env.app.db); // made at start by `wcm serve`; the MAC of every refresh token uses it
    const { client, first } = await newGrant();
    const second = await refreshTokens(env.app.db, client, {
      refresh_token: first.refresh_token,
      origin: ORIGIN,
    });
    const [, grantPart] = /^wcm_ort_([A-Za-z0-9]+)_(\d+)_/.exec(second.refresh_token)!;
    await expect(
      refreshTokens(env.app.db, client, {
        refresh_token: `wcm_ort_${grantPart}_0_${'A'.repeat(40)}`,
        origin: ORIGIN,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant', description: 'The refresh token is not recognised.' });
    // The family lives: the current refresh token still works, and so does its access token.
    await expect(authenticate(env.app.db, `Bearer ${second.access_token}`)).resolves.toBeDefined();
    const third = await refreshTokens(env.app.db, client, {
      refresh_token: second.refresh_token,
      origin: ORIGIN,
    });
    // The genuine earlier token is still recognised as a replay.
    await expect(
      refreshTokens(env.app.db, client, { refresh_token: first.refresh_token, origin: ORIGIN }),
    ).rejects.toMatchObject({ error: 'invalid_grant', description: expect.stringContaining('already used') });
    await expect(authenticate(env.app.db, `Bearer ${third.access_token}`)).rejects.toThrow(/revoked/);
  });
});
