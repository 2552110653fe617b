// `wcm auth login --web` at the protocol level, against a minimal stand-in authorization server
// that records every request, so the exact requests the CLI sends (PKCE, resource, rotation,
// revocation order) are asserted. The same login against the real server of `wcm serve` is in
// auth-web-server.test.ts.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, wcm } from '../support/cli.js';

const WS = '11111111-1111-4111-8111-111111111111';
const calls: Array<{ path: string; form?: Record<string, string>; authorization?: string }> = [];
let origin = '';
let server: http.Server;
let serial = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const u = new URL(req.url!, origin);
      const form = req.method === 'POST' ? Object.fromEntries(new URLSearchParams(body)) : undefined;
      calls.push({ path: u.pathname, form, authorization: req.headers.authorization });
      const json = (status: number, v: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(v));
      if (u.pathname === '/.well-known/oauth-protected-resource')
        return json(200, { resource: `${origin}/v1`, authorization_servers: [origin] });
      if (u.pathname === '/.well-known/oauth-authorization-server') {
        return json(200, {
          issuer: origin,
          authorization_endpoint: `${origin}/oauth/authorize`,
          token_endpoint: `${origin}/oauth/token`,
          revocation_endpoint: `${origin}/oauth/revoke`,
        });
      }
      if (u.pathname === '/oauth/authorize') {
        const back = new URL(u.searchParams.get('redirect_uri')!);
        back.search = new URLSearchParams({
          code: 'code-1',
          state: u.searchParams.get('state')!,
          iss: origin,
        }).toString();
        return res.writeHead(302, { location: back.href }).end();
      }
      if (u.pathname === '/oauth/token') {
        serial += 1;
        if (form!.grant_type === 'refresh_token' && form!.refresh_token === 'wcm_ort_dead')
          return json(400, { error: 'invalid_grant' });
        return json(200, {
          access_token: `wcm_oat_access${serial}`,
          refresh_token: `wcm_ort_refresh${serial}`,
          token_type: 'Bearer',
          expires_in: 3600,
          scope: 'content:read',
        });
      }
      if (u.pathname === '/oauth/revoke') return res.writeHead(200).end();
      if (u.pathname === '/v1/me') {
        return json(200, {
          data: {
            user: { id: 'u', name: 'Ada', email: 'a@x' },
            token: { name: 'wcm-cli', kind: 'oauth', abilities: ['content:read'], expires_at: null },
            workspaces: [{ id: WS, name: 'W', role: 'owner' }],
          },
        });
      }
      json(200, { data: [], meta: { request_id: 'r', next_cursor: null } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

it('logs in through the printed URL, renews an expired access token by itself, and logout revokes both', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'wcm-web-'));
  const env = { WCM_CONFIG_DIR: dir, BROWSER: 'none', NO_COLOR: '1', CI: 'true' };
  const login = execa(
    'node',
    [BIN, 'auth', 'login', '--web', '--scopes', 'content:read', '--base-url', `${origin}/v1`, '--timeout', '20'],
    { env, reject: false },
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
  const authorize = new URL(url);
  expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorize.searchParams.get('resource')).toBe(`${origin}/v1`);
  // The "browser": follow the authorization server's redirect to the CLI's loopback listener.
  const page = await fetch(url);
  expect(await page.text()).toContain('You can close this tab');
  const r = await login;
  expect(r.exitCode, r.stderr).toBe(0);
  const exchange = calls.find((c) => c.path === '/oauth/token')!.form!;
  expect(exchange).toMatchObject({
    grant_type: 'authorization_code',
    code: 'code-1',
    client_id: 'wcm-cli',
    resource: `${origin}/v1`,
  });
  expect(exchange.code_verifier).toMatch(/^[\w-]{43}$/);
  const saved = () => JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')).profiles.default;
  expect(saved()).toMatchObject({
    base_url: `${origin}/v1`,
    token: 'wcm_oat_access1',
    workspace: WS,
    oauth: { refresh_token: 'wcm_ort_refresh1', scope: 'content:read' },
  });

  // Expire the access token: the next command renews it first and saves the rotated refresh token.
  const cfg = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8'));
  cfg.profiles.default.oauth.expires_at = new Date(Date.now() - 1000).toISOString();
  writeFileSync(path.join(dir, 'config.json'), JSON.stringify(cfg));
  calls.length = 0;
  const ls = await wcm(['lists', 'ls', '--json'], { env });
  expect(ls.exitCode, ls.stderr).toBe(0);
  expect(calls.map((c) => c.path)).toEqual(['/oauth/token', `/v1/workspaces/${WS}/lists`]);
  expect(calls[0].form).toMatchObject({ grant_type: 'refresh_token', refresh_token: 'wcm_ort_refresh1' });
  expect(calls[1].authorization).toBe('Bearer wcm_oat_access2');
  expect(saved()).toMatchObject({ token: 'wcm_oat_access2', oauth: { refresh_token: 'wcm_ort_refresh2' } });

  const status = await wcm(['auth', 'status', '--json'], { env });
  expect(JSON.parse(status.stdout).oauth).toMatchObject({ scopes: ['content:read'], refresh_token_stored_in: 'file' });
  expect(status.stdout).not.toContain('wcm_oat_access2');
  expect(status.stdout).not.toContain('wcm_ort_refresh2');

  calls.length = 0;
  const out = await wcm(['auth', 'logout'], { env });
  expect(out.exitCode).toBe(0);
  expect(calls.filter((c) => c.path === '/oauth/revoke').map((c) => c.form!.token)).toEqual([
    'wcm_ort_refresh2',
    'wcm_oat_access2',
  ]);
  expect(saved().token).toBeUndefined();
  expect(saved().oauth).toBeUndefined();
});

it('a refused refresh says to log in with --web again, exit 4', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'wcm-web-'));
  writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({
      profiles: {
        default: {
          base_url: `${origin}/v1`,
          token: 'wcm_oat_old',
          workspace: WS,
          oauth: {
            client_id: 'wcm-cli',
            token_endpoint: `${origin}/oauth/token`,
            refresh_token: 'wcm_ort_dead',
            expires_at: new Date(Date.now() - 1000).toISOString(),
          },
        },
      },
    }),
  );
  const r = await wcm(['lists', 'ls'], { env: { WCM_CONFIG_DIR: dir } });
  expect(r.exitCode).toBe(4);
  expect(r.stderr).toContain('invalid_grant');
  expect(r.stderr).toContain('wcm auth login --web');
});
