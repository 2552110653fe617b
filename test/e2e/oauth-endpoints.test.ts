// The OAuth token and revocation endpoints a profile keeps must be on its base URL's origin (the
// issuer's), checked each time they are used (docs/security.md, "The CLI"): the built binary, with
// a profile edited to send them elsewhere, and a listener there that must record nothing.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../src/cli/config.js';
import { wcm } from '../support/cli.js';
import { tempDir } from '../support/server.js';

const WS = '7f1c0f3e-1d2a-4c5b-9e8f-0a1b2c3d4e5f';
const REFRESH = 'wcm_ort_refreshThatMustStayHome';
const ACCESS = 'wcm_oat_accessThatMustStayHome';

type Recorder = { server: http.Server; origin: string; seen: Array<{ method: string; url: string; body: string }> };
async function recorder(answer: (url: string, origin: string) => unknown): Promise<Recorder> {
  const r = { seen: [] } as unknown as Recorder;
  r.server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      r.seen.push({ method: req.method!, url: req.url!, body });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer(req.url!, r.origin)));
    });
  });
  await new Promise<void>((done) => r.server.listen(0, '127.0.0.1', done));
  r.origin = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
  return r;
}

let home: Recorder;
let elsewhere: Recorder;
let dir: ReturnType<typeof tempDir>;
beforeAll(async () => {
  dir = tempDir('wcm-oauth-endpoints-');
  elsewhere = await recorder(() => ({ access_token: 'wcm_oat_stolen', expires_in: 3600 }));
  home = await recorder((url, origin) => {
    if (url === '/.well-known/oauth-protected-resource') return { authorization_servers: [origin] };
    if (url === '/.well-known/oauth-authorization-server')
      return {
        issuer: origin,
        authorization_endpoint: `${origin}/oauth/authorize`,
        token_endpoint: `${elsewhere.origin}/oauth/token`,
      };
    if (url === '/oauth/token') return { access_token: 'wcm_oat_renewed', expires_in: 3600 };
    return { data: [], meta: { request_id: 'r', next_cursor: null } };
  });
});
afterAll(async () => {
  for (const r of [home, elsewhere]) await new Promise((done) => r.server.close(done));
  dir.cleanup();
});

const env = () => ({ WCM_CONFIG_DIR: dir.dir, WCM_KEYCHAIN: 'off', BROWSER: 'none' });
async function profile(name: string, endpointOrigin: string) {
  const profiles = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir });
  await profiles.set(name, {
    base_url: `${home.origin}/v1`,
    token: ACCESS,
    workspace: WS,
    oauth: {
      client_id: 'wcm-cli',
      token_endpoint: `${endpointOrigin}/oauth/token`,
      revocation_endpoint: `${endpointOrigin}/oauth/revoke`,
      refresh_token: REFRESH,
      expires_at: new Date(Date.now() - 60_000).toISOString(),
    },
  });
}

describe('OAuth endpoints off the profile origin', () => {
  it('a refresh due to an edited token_endpoint is refused; nothing reaches it', async () => {
    await profile('edited', elsewhere.origin);
    const r = await wcm(['--profile', 'edited', 'lists', 'ls'], { env: env() });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain(
      `Profile edited's OAuth token endpoint ${elsewhere.origin}/oauth/token is not on ${home.origin}, the origin of its base URL; the refresh token was not sent.`,
    );
    expect(elsewhere.seen).toEqual([]);
  });

  it('logout with an edited revocation_endpoint sends neither token there, and forgets them', async () => {
    await profile('edited-logout', elsewhere.origin);
    const r = await wcm(['auth', 'logout', '--profile', 'edited-logout'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(elsewhere.seen).toEqual([]);
    const left = (await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir })).get('edited-logout');
    expect(JSON.stringify(left ?? {})).not.toContain(REFRESH);
  });

  it('on the profile origin, the same refresh goes out (the check is not a blanket refusal)', async () => {
    await profile('home', home.origin);
    home.seen.length = 0;
    const r = await wcm(['--profile', 'home', 'lists', 'ls'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(home.seen.find((s) => s.url === '/oauth/token')?.body).toContain(REFRESH);
  });

  it('auth login --web refuses metadata whose token endpoint is on another origin, before any browser', async () => {
    const r = await wcm(
      ['auth', 'login', '--web', '--profile', 'fresh', '--base-url', `${home.origin}/v1`, '--timeout', '5'],
      {
        env: env(),
      },
    );
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `The authorization server's token endpoint ${elsewhere.origin}/oauth/token is not on ${home.origin}, the origin of the base URL`,
    );
    expect(elsewhere.seen).toEqual([]);
  });
});
