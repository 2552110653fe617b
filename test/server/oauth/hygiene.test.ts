// OAuth hygiene (docs/security.md#oauth, issue 33 finding 7) and what strict clients need (issue 35 §3), over a
// real socket: registration limits and redirect schemes, rate limits, revocation that authenticates
// confidential clients, no Basic challenge for public clients, errors shown as a page to a
// self-registered client before sign-in, the unverified name on consent, /api/v1's own metadata
// and the scope on a 401 from /mcp.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, tokenId } from '../../../src/store/fixtures/import.js';
import { authorizeUrl, FormBrowser, pkce, tokenRequest } from '../../support/oauth.js';
import { demo, onPort } from '../../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
beforeAll(async () => {
  server = await onPort({ rateLimit: 1000 });
  origin = new URL(server.url).origin;
});
afterAll(async () => {
  await server.close();
});

const register = (body: unknown, contentType = 'application/json') =>
  fetch(`${origin}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
const registered = async (redirect: string) =>
  (await (await register({ client_name: 'Evil <b>Corp</b>', redirect_uris: [redirect] })).json()) as {
    client_id: string;
  };

describe('/oauth/register', () => {
  it('JSON only: another content type is 415 with an RFC 7591 error', async () => {
    const res = await register(JSON.stringify({ redirect_uris: ['https://a.example/cb'] }), 'text/plain');
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({
      error: 'invalid_client_metadata',
      error_description: expect.stringContaining('application/json'),
    });
  });

  it('a body over 16 KB is 413; a redirect URI over 2,000 characters or more than 10 URIs is 400', async () => {
    const big = await register({ redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(17 * 1024) });
    expect(big.status).toBe(413);
    const long = await register({ redirect_uris: [`https://a.example/${'p'.repeat(2000)}`] });
    expect([long.status, (await long.json()).error_description]).toEqual([
      400,
      expect.stringContaining('2,000 characters'),
    ]);
    const many = await register({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`) });
    expect(many.status).toBe(400);
  });

  it.each([
    'javascript:alert(1)',
    'data:text/html,hi',
    'file:///etc/passwd',
    'vbscript:msgbox',
    'about:blank',
    'blob:https://a.example/x',
    'http://example.com/cb',
    // Issue 47: private-use look-alikes of script schemes, and opaque private-use URIs.
    'x-javascript:alert(1)',
    'X-JavaScript://host/alert(1)',
    'livescript:alert(1)',
    'jscript:/x',
    'ecmascript://x/y',
    'wcm:alert(1)',
    'com.example.app:cb',
    'view-source:https://a.example/',
    'filesystem:https://a.example/temporary/x',
  ])('%s is refused (400 invalid_redirect_uri), nothing registered', async (uri) => {
    const before = await server.db.read((tx) => tx.count('oauth_apps'));
    const res = await register({ redirect_uris: [uri] });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_redirect_uri');
    expect(await server.db.read((tx) => tx.count('oauth_apps'))).toBe(before);
  });

  it.each(['com.example.app:/cb', 'cursor://anysphere.cursor-retrieval/oauth/callback', 'vscode://vscode.github/cb'])(
    'the private-use scheme %s registers (RFC 8252 §7.1)',
    async (uri) => {
      const res = await register({ client_name: 'Desktop host', redirect_uris: [uri] });
      expect(res.status).toBe(201);
      expect((await res.json()).redirect_uris).toEqual([uri]);
    },
  );
});

describe('the authorization endpoint and a self-registered client', () => {
  it('before sign-in an error is a page, not a redirect to its URI; an API-registered app still gets the redirect', async () => {
    const app = await registered('https://evil.example/cb');
    const bad = await fetch(
      authorizeUrl(origin, {
        response_type: 'token',
        client_id: app.client_id,
        redirect_uri: 'https://evil.example/cb',
        state: 's',
      }),
      { redirect: 'manual' },
    );
    expect(bad.status).toBe(400);
    expect(bad.headers.get('location')).toBeNull();
    expect(await bad.text()).toContain('unsupported_response_type');
    const known = await fetch(
      authorizeUrl(origin, {
        response_type: 'token',
        client_id: demo.oauthAppAcme,
        redirect_uri: 'http://127.0.0.1:5931/callback',
        state: 's',
      }),
      { redirect: 'manual' },
    );
    expect(known.status).toBe(303);
    expect(known.headers.get('location')).toContain('error=unsupported_response_type');
  });

  it('consent calls its name unverified, shows where it goes, and a private-use redirect gets the code', async () => {
    const redirect = 'com.example.app:/cb';
    const app = await registered(redirect);
    const { challenge } = pkce();
    const browser = new FormBrowser(origin);
    const signIn = await browser.follow(
      authorizeUrl(origin, {
        response_type: 'code',
        client_id: app.client_id,
        redirect_uri: redirect,
        scope: 'content:read',
        state: 'st',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
    );
    const consent = await browser.chooseAccount(signIn, 'usr_ada');
    expect(consent.res.status).toBe(200);
    expect(consent.body).toContain('Unverified application');
    expect(consent.body).toContain('Evil &lt;b&gt;Corp&lt;/b&gt;');
    expect(consent.body).toContain('<code>com.example.app:</code>');
    expect(consent.res.headers.get('content-security-policy')).toContain("form-action 'self' com.example.app:");
    const res = await browser.decide(consent.body, 'approve', [demo.ws1]);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toMatch(/^com\.example\.app:\/cb\?code=wcm_code_/);
  });
});

describe('the token and revocation endpoints', () => {
  it('invalid_client for a public client carries no Basic challenge; a failed Basic attempt does', async () => {
    const pub = await tokenRequest(origin, {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: 'wcm_app_nobodyRegisteredThis00000000',
    });
    expect(pub.status).toBe(401);
    expect(pub.json.error).toBe('invalid_client');
    expect(pub.headers.get('www-authenticate')).toBeNull();
    const basic = await tokenRequest(
      origin,
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { basic: [demo.oauthAppBlueFern, 'wrong'] },
    );
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toBe('Basic realm="wcm"');
  });

  it("revoking a confidential client's token needs its authentication (401 invalid_client); another client's call leaves it alone", async () => {
    const text = 'wcm_oat_blueFernSyncAccess0123456789abcdefghij';
    const sha = hashToken(text);
    await server.db.write((tx) =>
      tx.put('tokens', {
        id: tokenId(sha),
        token_sha256: sha,
        user_id: 'usr_bo',
        name: 'sync',
        abilities: ['content:read'],
        expires_at: null,
        revoked_at: null,
        audience: 'wcm-api-v1',
        workspace_ids: [demo.ws2],
        grant_id: demo.grantBo,
        client_id: demo.oauthAppBlueFern,
      }),
    );
    const anonymous = await tokenRequest(origin, { token: text }, { path: '/oauth/revoke' });
    expect([anonymous.status, anonymous.json?.error]).toEqual([401, 'invalid_client']);
    const other = await tokenRequest(origin, { token: text, client_id: demo.oauthAppAcme }, { path: '/oauth/revoke' });
    expect(other.status).toBe(200);
    expect((await server.db.read((tx) => tx.get('tokens', tokenId(sha))))!.revoked_at).toBeNull();
    const own = await tokenRequest(
      origin,
      { token: text },
      { path: '/oauth/revoke', basic: [demo.oauthAppBlueFern, demo.oauthAppBlueFernSecret] },
    );
    expect(own.status).toBe(200);
    expect((await server.db.read((tx) => tx.get('tokens', tokenId(sha))))!.revoked_at).not.toBeNull();
  });
});

describe('rate limits per client address', () => {
  it('/oauth/token and /oauth/register answer 429 with Retry-After past the limit', async () => {
    const limited = await onPort({ rateLimit: 2 });
    try {
      const o = new URL(limited.url).origin;
      const tokens = [];
      for (let i = 0; i < 3; i++)
        tokens.push(
          await tokenRequest(o, { grant_type: 'refresh_token', refresh_token: 'x', client_id: demo.oauthAppAcme }),
        );
      expect(tokens.map((t) => t.status)).toEqual([400, 400, 429]);
      expect(Number(tokens[2].headers.get('retry-after'))).toBeGreaterThan(0);
      const regs = [];
      for (let i = 0; i < 3; i++)
        regs.push(
          (
            await fetch(`${o}/oauth/register`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: '{}',
            })
          ).status,
        );
      expect(regs).toEqual([400, 400, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('protected-resource metadata for strict clients', () => {
  it('/api/v1 has its own document whose resource is exactly …/api/v1, and its 401 points there', async () => {
    const doc = await (await fetch(`${origin}/.well-known/oauth-protected-resource/api/v1`)).json();
    expect(doc).toMatchObject({ resource: `${origin}/api/v1`, authorization_servers: [origin] });
    const res = await fetch(`${origin}/api/v1/me`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/api/v1"`,
    );
  });

  it('a 401 from /mcp names the scopes its tools need beside resource_metadata', async () => {
    const res = await fetch(`${origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    const scope = /scope="([^"]+)"/.exec(challenge)![1].split(' ');
    expect(scope).toEqual(expect.arrayContaining(['content:read', 'content:write', 'engagements:read']));
    // Only what some tool needs: the OAuth-app tools that needed workspaces:write are gone (docs/security.md#oauth).
    expect(scope).not.toContain('workspaces:write');
  });
});
