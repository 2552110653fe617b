// `wcm auth login --web` against the real OAuth server of `wcm serve` (docs/oauth.md): the
// real binary with BROWSER=none prints the authorize URL; the test plays the browser through the
// server's own sign-in and consent forms and lands on the CLI's loopback listener. Async spawns
// only: the server runs in this process.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, wcm } from '../support/cli.js';
import { FormBrowser } from '../support/oauth.js';
import { demo, onPort } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
beforeAll(async () => {
  server = await onPort();
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server.close();
});

/** Starts `wcm auth login --web` and resolves with the process and the URL it printed. */
async function startLogin(env: Record<string, string>, extra: string[] = []) {
  const login = execa(
    'node',
    [BIN, 'auth', 'login', '--web', '--base-url', `${origin}/v1`, '--timeout', '30', ...extra],
    { env: { NO_COLOR: '1', CI: 'true', ...env }, reject: false },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    void login.then((r) => reject(new Error(`login ended before printing a URL: ${r.stderr}`)));
    login.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /(http:\/\/\S+\/oauth\/authorize\?\S+)/.exec(err);
      if (m) resolve(m[1]);
    });
  });
  return { login, url };
}

it('logs in through the consent page, uses the granted workspace, refreshes by itself, and logout revokes at the server', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'wcm-web-real-'));
  const env = { WCM_CONFIG_DIR: dir, BROWSER: 'none', WCM_KEYCHAIN: 'off' };
  const { login, url } = await startLogin(env, ['--scopes', 'content:read,engagements:read']);

  // The browser: sign in as Ada, tick Acme Coffee only, authorize.
  const browser = new FormBrowser(origin);
  const signInPage = await browser.follow(url);
  const consent = await browser.chooseAccount(signInPage, 'usr_ada');
  expect(consent.body).toContain('Authorize wcm (command line)');
  const approved = await browser.decide(consent.body, 'approve', [demo.ws1]);
  const callback = approved.headers.get('location')!;
  expect(callback).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
  const landing = await fetch(callback);
  expect(await landing.text()).toContain('You can close this tab');

  const r = await login;
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout + r.stderr).toContain('Ada Lindqvist');
  const saved = () => JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')).profiles.default;
  const first = saved();
  expect(first).toMatchObject({ base_url: `${origin}/v1`, workspace: demo.ws1, oauth: { client_id: 'wcm-cli' } });
  expect(first.token).toMatch(/^wcm_oat_/);

  // The token works where it was granted, with what was granted.
  const ls = await wcm(['lists', 'ls', '--json'], { env });
  expect(ls.exitCode, ls.stderr).toBe(0);
  expect(JSON.parse(ls.stdout).length).toBeGreaterThan(0);
  const other = await wcm(['lists', 'ls', '--workspace', demo.ws2], { env });
  expect(other.exitCode).toBe(4);
  const status = JSON.parse((await wcm(['auth', 'status', '--json'], { env })).stdout);
  expect(status.token.kind).toBe('oauth');
  expect(status.token.abilities).toEqual(['content:read', 'engagements:read']);
  expect(status.workspaces.map((w: { id: string }) => w.id)).toEqual([demo.ws1]);
  expect(JSON.stringify(status)).not.toContain(first.token);

  // An expired access token is renewed first: the real server rotates the refresh token.
  const cfg = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
  cfg.profiles.default.oauth.expires_at = new Date(Date.now() - 1000).toISOString();
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(cfg));
  const again = await wcm(['lists', 'ls', '--json'], { env });
  expect(again.exitCode, again.stderr).toBe(0);
  const second = saved();
  expect(second.token).not.toBe(first.token);
  expect(second.oauth.refresh_token).not.toBe(first.oauth.refresh_token);
  expect((await fetch(`${origin}/v1/me`, { headers: { authorization: `Bearer ${second.token}` } })).status).toBe(200);

  // Grants are managed with a personal token (docs/security.md#oauth): the OAuth token is refused, Ada's personal token sees the grant.
  const refused = await wcm(['oauth', 'grants', 'ls', '--json'], { env });
  expect(refused.exitCode).not.toBe(0);
  expect(refused.stderr).toContain('personal access token');
  const grants = JSON.parse(
    (await wcm(['oauth', 'grants', 'ls', '--json'], { env: { ...env, WCM_TOKEN: demo.owner } })).stdout,
  );
  expect(
    grants.some(
      (g: { client_id: string; workspace_ids: string[] }) =>
        g.client_id === 'wcm-cli' && g.workspace_ids.join() === demo.ws1,
    ),
  ).toBe(true);

  // Logout revokes at the server before forgetting.
  const out = await wcm(['auth', 'logout'], { env });
  expect(out.exitCode, out.stderr).toBe(0);
  expect((await fetch(`${origin}/v1/me`, { headers: { authorization: `Bearer ${second.token}` } })).status).toBe(401);
  const refresh = await fetch(`${origin}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: second.oauth.refresh_token,
      client_id: 'wcm-cli',
    }),
  });
  expect((await refresh.json()).error).toBe('invalid_grant');
});

it('Deny on the consent page: the CLI says so, exit 4, nothing saved', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'wcm-web-real-'));
  const env = { WCM_CONFIG_DIR: dir, BROWSER: 'none', WCM_KEYCHAIN: 'off' };
  const { login, url } = await startLogin(env);
  const browser = new FormBrowser(origin);
  const consent = await browser.chooseAccount(await browser.follow(url), 'usr_ada');
  const denied = await browser.decide(consent.body, 'deny');
  await fetch(denied.headers.get('location')!);
  const r = await login;
  expect(r.exitCode).toBe(4);
  expect(r.stderr).toContain('access_denied');
  let profiles = {};
  try {
    profiles = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')).profiles ?? {};
  } catch {
    /* no config file at all: nothing saved */
  }
  expect(JSON.stringify(profiles)).not.toContain('wcm_oat_');
});
