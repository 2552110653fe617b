// Issue 37 item 8: the server, not only the local clock, decides that an access token expired.
// A profile of `auth login --web` whose token the server refuses (401 invalid_token) is renewed
// once with its refresh token and the request sent again. The real server of `wcm serve`, with
// its clock moved past the access token's hour while the CLI's clock still thinks it is valid.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, wcm } from '../support/cli.js';
import { FormBrowser } from '../support/oauth.js';
import { demo, onPort } from '../support/server.js';

let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
let dir: string;
beforeAll(async () => {
  server = await onPort({ clock });
  origin = new URL(server.url).origin;
  dir = mkdtempSync(path.join(tmpdir(), 'wcm-renew-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

async function webLogin(env: Record<string, string>) {
  const login = execa(
    'node',
    [BIN, 'auth', 'login', '--web', '--base-url', `${origin}/v1`, '--timeout', '30', '--scopes', 'content:read'],
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
  const browser = new FormBrowser(origin);
  const consent = await browser.chooseAccount(await browser.follow(url), 'usr_ada');
  const approved = await browser.decide(consent.body, 'approve', [demo.ws1]);
  await (await fetch(approved.headers.get('location')!)).text();
  const r = await login;
  expect(r.exitCode, r.stderr).toBe(0);
}

it('a 401 invalid_token from the server renews the token once and sends the request again', async () => {
  const env = { WCM_CONFIG_DIR: dir, BROWSER: 'none', WCM_KEYCHAIN: 'off' };
  await webLogin(env);
  const saved = () => JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')).profiles.default;
  const first = saved();
  // Locally the token has most of its hour left; the server's clock says it ended.
  expect(Date.parse(first.oauth.expires_at) - Date.now()).toBeGreaterThan(30 * 60_000);
  offsetMs = 2 * 3600_000;
  expect((await fetch(`${origin}/v1/me`, { headers: { authorization: `Bearer ${first.token}` } })).status).toBe(401);

  const ls = await wcm(['lists', 'ls', '--json', '--debug'], { env });
  expect(ls.exitCode, ls.stderr).toBe(0);
  expect(JSON.parse(ls.stdout).length).toBeGreaterThan(0);
  expect(ls.stderr).toContain('renewing it once and sending again');
  const second = saved();
  expect(second.token).not.toBe(first.token);
  expect(second.oauth.refresh_token).not.toBe(first.oauth.refresh_token);
  expect(ls.stderr).not.toContain(second.token);

  // A token that stays refused after the renewal is reported, not renewed in a loop.
  const token = await wcm(['auth', 'token'], { env });
  await fetch(`${origin}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: second.oauth.refresh_token, client_id: 'wcm-cli' }),
  });
  const refused = await wcm(['lists', 'ls'], { env });
  expect(refused.exitCode).toBe(4);
  expect(refused.stderr).toContain('wcm auth login --web');
  // One level of brackets: the endpoint's error code and its description, as one parenthesis.
  const said = /Error: (.*)/.exec(refused.stderr)![1];
  expect(said).toMatch(
    /^Profile default's OAuth session could not be renewed: the token endpoint refused it \(invalid_grant: [^()]+\)\.$/,
  );
  expect(token.stdout.trim()).toBe(second.token);
});
