// What the OAuth server issues is journaled like any write: after `kill -9` of the real binary
// the access token still works, the refresh token still rotates, and a used code stays used.
import path from 'node:path';
import { expect, it } from 'vitest';
import { spawnServe } from '../support/cli.js';
import { authorizeUrl, FormBrowser, pkce, tokenRequest } from '../support/oauth.js';
import { DEMO, demo, tempDir } from '../support/server.js';

it('an issued token, its refresh token and a used code survive kill -9', async () => {
  const dir = tempDir('wcm-oauth-kill-');
  const data = path.join(dir.dir, 'store.json');
  const env = { WCM_CONFIG_DIR: dir.dir };
  let server = await spawnServe(['--data', data, '--seed', DEMO], { env });
  try {
    let origin = new URL(server.url).origin;
    const redirect = 'http://127.0.0.1:5999/callback';
    const { verifier, challenge } = pkce();
    const browser = new FormBrowser(origin);
    const signIn = await browser.follow(
      authorizeUrl(origin, {
        response_type: 'code',
        client_id: demo.oauthAppAcme,
        redirect_uri: redirect,
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    const consent = await browser.chooseAccount(signIn, 'usr_ada');
    const code = new URL(
      (await browser.decide(consent.body, 'approve', [demo.ws1])).headers.get('location')!,
    ).searchParams.get('code')!;
    const form = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirect,
      client_id: demo.oauthAppAcme,
      code_verifier: verifier,
    };
    const t = await tokenRequest(origin, form);
    expect(t.status).toBe(200);

    server.proc.kill('SIGKILL');
    await server.proc;
    server = await spawnServe(['--data', data], { env });
    origin = new URL(server.url).origin;

    const me = await fetch(`${origin}/v1/me`, { headers: { authorization: `Bearer ${t.json.access_token}` } });
    expect(me.status).toBe(200);
    const refreshed = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: t.json.refresh_token,
      client_id: demo.oauthAppAcme,
    });
    expect(refreshed.status).toBe(200);
    // The code was used before the kill: using it again is refused and revokes what it issued.
    const replay = await tokenRequest(origin, form);
    expect(replay.json.error).toBe('invalid_grant');
    expect(
      (await fetch(`${origin}/v1/me`, { headers: { authorization: `Bearer ${refreshed.json.access_token}` } })).status,
    ).toBe(401);
  } finally {
    server.proc.kill('SIGKILL');
    await server.proc;
    dir.cleanup();
  }
});
