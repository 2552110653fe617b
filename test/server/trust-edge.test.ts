// The server's edge (docs/security.md#host-origin-and-cors) over a real socket: the configured origin (never the Host header)
// behind every URL the server builds, the Host allow-list, the Origin rule, and CORS.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTrustOptions, TrustOptionError } from '../../src/server/trust/config.js';
import { demo, onPort } from '../support/server.js';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  json: any;
}

/** node:http, not fetch: fetch will not send a Host header of our choosing. */
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path, headers: { connection: 'close', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const bearer = { authorization: `Bearer ${demo.owner}` };

describe('Host allow-list (421 host_not_allowed before routing)', () => {
  let server: Awaited<ReturnType<typeof onPort>>;
  beforeAll(async () => {
    server = await onPort({ allowedHosts: ['sandbox.test', '.corp.test'] });
  });
  afterAll(async () => {
    await server.close();
  });

  it.each([
    ['the socket address', (p: number) => `127.0.0.1:${p}`, 200],
    ['localhost', (p: number) => `localhost:${p}`, 200],
    ['a *.localhost name', () => 'app.localhost', 200],
    ['IPv6 loopback literal', (p: number) => `[::1]:${p}`, 200],
    ['another IP literal (a rebinding page can only send a name)', () => '10.1.2.3:8080', 200],
    ['--allowed-host name', () => 'sandbox.test', 200],
    ['--allowed-host .domain: the domain', () => 'corp.test', 200],
    ['--allowed-host .domain: a subdomain', () => 'api.corp.test:443', 200],
    ['a foreign name (DNS rebinding)', (p: number) => `attacker.example:${p}`, 421],
    ['a name ending in localhost but not under it', () => 'evillocalhost', 421],
    ['localhost as a subdomain of a foreign name', () => 'localhost.attacker.example', 421],
    ['a name that only looks like an IP', () => '127.0.0.1.nip.io', 421],
    ['a header-injection attempt', () => 'x", error="injected', 421],
    ['a listed name with a suffix', () => 'sandbox.test.attacker.example', 421],
  ])('%s', async (_name, host, status) => {
    const res = await send(server.port, 'GET', '/v1/me', { host: host(server.port), ...bearer });
    expect(res.status).toBe(status);
    if (status === 421) {
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json).toMatchObject({ status: 421, code: 'host_not_allowed' });
      expect(res.headers['www-authenticate']).toBeUndefined();
    } else {
      expect(res.json.data.user).toBeDefined();
    }
  });

  it("dashboard_url names the server's own origin, whatever allowed Host the caller used (docs/api-behaviour.md)", async () => {
    for (const host of [`localhost:${server.port}`, `[::1]:${server.port}`, 'sandbox.test', 'api.corp.test:443']) {
      const list = await send(server.port, 'GET', `/api/v1/workspaces/${demo.ws1}/lists?limit=1`, { host, ...bearer });
      expect(list.status).toBe(200);
      expect(list.json.data[0].dashboard_url).toMatch(
        new RegExp(`^${server.origin.replace(/[.[\]]/g, '\\$&')}/dashboard/workspaces/${demo.ws1}/lists/`),
      );
    }
  });

  it('names the flag that fixes it', async () => {
    const res = await send(server.port, 'GET', '/healthz', { host: 'wcm.internal:4010' });
    expect(res.status).toBe(421);
    expect(res.json.detail).toContain('wcm serve --allowed-host wcm.internal');
  });

  it('nothing from the Host header reaches WWW-Authenticate (it used to be injectable)', async () => {
    const injected = await send(server.port, 'GET', '/v1/me', { host: 'x", error="injected' });
    expect(injected.status).toBe(421);
    expect(injected.headers['www-authenticate']).toBeUndefined();
    // An allowed but different Host: the challenge still names the server's own origin.
    const other = await send(server.port, 'GET', '/v1/me', { host: 'sandbox.test' });
    expect(other.status).toBe(401);
    expect(other.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${server.origin}/.well-known/oauth-protected-resource"`,
    );
  });

  it('the full rebinding walk fails at its first step: dynamic registration with a foreign Host', async () => {
    const host = { host: `attacker.example:${server.port}`, 'content-type': 'application/json' };
    const apps = await server.db.read((tx) => tx.count('oauth_apps'));
    const reg = await send(
      server.port,
      'POST',
      '/oauth/register',
      host,
      JSON.stringify({ redirect_uris: ['http://attacker.example/cb'], client_name: 'x' }),
    );
    expect(reg.status).toBe(421);
    expect(reg.json.code).toBe('host_not_allowed');
    expect(await server.db.read((tx) => tx.count('oauth_apps'))).toBe(apps);
  });
});

describe('the configured origin (--public-url), never the Host header', () => {
  const PUBLIC = 'https://sandbox.example.com';
  let server: Awaited<ReturnType<typeof onPort>>;
  beforeAll(async () => {
    server = await onPort({ publicUrl: `${PUBLIC}/` });
  });
  afterAll(async () => {
    await server.close();
  });

  it.each([
    ['the public name', 'sandbox.example.com'],
    ['the socket address', '127.0.0.1'],
    ['localhost', 'localhost'],
  ])('OAuth metadata names the public URL whatever the Host (%s)', async (_name, host) => {
    const as = await send(server.port, 'GET', '/.well-known/oauth-authorization-server', { host });
    expect(as.status).toBe(200);
    expect(as.json).toMatchObject({
      issuer: PUBLIC,
      authorization_endpoint: `${PUBLIC}/oauth/authorize`,
      token_endpoint: `${PUBLIC}/oauth/token`,
      registration_endpoint: `${PUBLIC}/oauth/register`,
      revocation_endpoint: `${PUBLIC}/oauth/revoke`,
    });
    const pr = await send(server.port, 'GET', '/.well-known/oauth-protected-resource/mcp', { host });
    expect(pr.json).toMatchObject({ resource: `${PUBLIC}/mcp`, authorization_servers: [PUBLIC] });
    const mcp = await send(server.port, 'POST', '/mcp', { host, 'content-type': 'application/json' }, '{}');
    expect(mcp.status).toBe(401);
    // /mcp also says which scopes its tools need (issue 35 §3).
    expect(mcp.headers['www-authenticate']).toMatch(
      new RegExp(`^Bearer resource_metadata="${PUBLIC}/\\.well-known/oauth-protected-resource/mcp", scope="[a-z: ]+"$`),
    );
  });

  it("the public URL's host is allowed; dashboard_url and cookies follow the public URL", async () => {
    expect(server.origin).toBe(PUBLIC);
    const list = await send(server.port, 'GET', `/v1/workspaces/${demo.ws1}/lists`, {
      host: 'sandbox.example.com',
      ...bearer,
    });
    expect(list.status).toBe(200);
    expect(list.json.data[0].dashboard_url).toMatch(new RegExp(`^${PUBLIC}/dashboard/workspaces/${demo.ws1}/lists/`));
    // Plain http on the socket, but the origin is https: the cookie is Secure.
    const page = await send(server.port, 'GET', '/dashboard/sign-in', { host: '127.0.0.1' });
    expect(page.status).toBe(200);
    expect(String(page.headers['set-cookie'])).toMatch(/; Secure/);
    expect(page.headers['referrer-policy']).toBe('same-origin');
  });
});

describe('Origin rule (403 origin_not_allowed) and CORS', () => {
  const APP = 'https://app.example.com';
  let server: Awaited<ReturnType<typeof onPort>>;
  beforeAll(async () => {
    server = await onPort({ allowedOrigins: [APP] });
  });
  afterAll(async () => {
    await server.close();
  });

  const EVIL = 'https://evil.example';
  const json = { 'content-type': 'application/json' };
  it.each([
    ['POST /v1 from a foreign page', 'POST', () => `/v1/workspaces/${demo.ws1}/lists`, EVIL, 403],
    ['POST /v1 from Origin: null', 'POST', () => `/v1/workspaces/${demo.ws1}/lists`, 'null', 403],
    ['DELETE /v1 from a foreign page', 'DELETE', () => `/v1/me/oauth-grants/${demo.grantAda}`, EVIL, 403],
    ['GET /mcp from a foreign page', 'GET', () => '/mcp', EVIL, 403],
    ['GET /oauth/authorize from a foreign page', 'GET', () => '/oauth/authorize', EVIL, 403],
    ['GET /dashboard from a foreign page', 'GET', () => '/dashboard', EVIL, 403],
    ['GET /_emulator/clock from a foreign page', 'GET', () => '/_emulator/clock', EVIL, 403],
    [
      'GET /v1 from a foreign page (reads are not state-changing; no CORS, so unreadable)',
      'GET',
      () => '/v1/me',
      EVIL,
      200,
    ],
    ['GET /.well-known from a foreign page', 'GET', () => '/.well-known/oauth-authorization-server', EVIL, 200],
    ["POST /v1 from the server's own origin", 'POST', () => `/v1/workspaces/${demo.ws1}/lists`, 'own', 201],
    [
      'POST /v1 from a loopback origin (the Inspector UI)',
      'POST',
      () => `/v1/workspaces/${demo.ws1}/lists`,
      'http://localhost:6274',
      201,
    ],
    ['POST /v1 from http://[::1]', 'POST', () => `/v1/workspaces/${demo.ws1}/lists`, 'http://[::1]:5173', 201],
    ['POST /v1 from --allowed-origin', 'POST', () => `/v1/workspaces/${demo.ws1}/lists`, APP, 201],
    [
      'POST /v1 from https://localhost (loopback is http only)',
      'POST',
      () => `/v1/workspaces/${demo.ws1}/lists`,
      'https://localhost:6274',
      403,
    ],
    ['POST /v1 without Origin (CLI, SDKs)', 'POST', () => `/v1/workspaces/${demo.ws1}/lists`, undefined, 201],
  ])('%s', async (_name, method, path, origin, status) => {
    const headers: Record<string, string> = { ...bearer, ...json };
    if (origin) headers.origin = origin === 'own' ? server.origin : origin;
    const before = await server.db.read((tx) => tx.count('listings'));
    const res = await send(
      server.port,
      method,
      path(),
      headers,
      method === 'POST' ? JSON.stringify({ title: 'From a page', template_slug: 'faq' }) : undefined,
    );
    expect(res.status).toBe(status);
    if (status === 403) {
      expect(res.json).toMatchObject({ code: 'origin_not_allowed' });
      expect(await server.db.read((tx) => tx.count('listings'))).toBe(before);
    }
    // Never credentials; never CORS outside its paths.
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    if (!path().startsWith('/.well-known/')) expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('names --allowed-origin in the refusal', async () => {
    const res = await send(server.port, 'POST', '/mcp', { origin: EVIL, ...json }, '{}');
    expect(res.status).toBe(403);
    expect(res.json.detail).toContain(`wcm serve --allowed-origin ${EVIL}`);
  });

  it.each([
    ['/mcp', 'POST', 'GET, POST, DELETE, OPTIONS'],
    ['/oauth/token', 'POST', 'POST, OPTIONS'],
    ['/oauth/register', 'POST', 'POST, OPTIONS'],
    ['/oauth/revoke', 'POST', 'POST, OPTIONS'],
    ['/.well-known/oauth-authorization-server', 'GET', 'GET, OPTIONS'],
  ])('preflight %s: 204 echoing an allowed origin, never with credentials', async (path, method, methods) => {
    for (const origin of ['http://localhost:6274', APP]) {
      const res = await send(server.port, 'OPTIONS', path, {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
      });
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
      expect(res.headers['access-control-allow-methods']).toBe(methods);
      expect(res.headers['access-control-allow-headers']).toBe(
        'Authorization, Content-Type, Mcp-Protocol-Version, Mcp-Session-Id',
      );
      expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    }
    const foreign = await send(server.port, 'OPTIONS', path, { origin: EVIL, 'access-control-request-method': method });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('no preflight outside the CORS paths', async () => {
    const res = await send(server.port, 'OPTIONS', `/v1/workspaces/${demo.ws1}/lists`, {
      origin: APP,
      'access-control-request-method': 'POST',
    });
    expect(res.status).not.toBe(204);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('actual responses on CORS paths carry the allowed origin, never `*`', async () => {
    const wk = await send(server.port, 'GET', '/.well-known/oauth-protected-resource', { origin: APP });
    expect(wk.headers['access-control-allow-origin']).toBe(APP);
    const foreign = await send(server.port, 'GET', '/.well-known/oauth-protected-resource', { origin: EVIL });
    expect(foreign.status).toBe(200);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    const plain = await send(server.port, 'GET', '/.well-known/oauth-protected-resource');
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    const mcp = await send(server.port, 'POST', '/mcp', { origin: 'http://127.0.0.1:6274', ...json }, '{}');
    expect(mcp.status).toBe(401);
    expect(mcp.headers['access-control-allow-origin']).toBe('http://127.0.0.1:6274');
    expect(mcp.headers['access-control-expose-headers']).toContain('WWW-Authenticate');
  });
});

describe('trust flags', () => {
  it.each([
    [{ publicUrl: 'sandbox.example.com' }, /--public-url.*absolute http\(s\) URL/],
    [{ publicUrl: 'ftp://sandbox.example.com' }, /--public-url.*http or https/],
    [{ publicUrl: 'https://sandbox.example.com/wcm' }, /--public-url.*no path/],
    [{ publicUrl: 'https://user:pw@sandbox.example.com' }, /--public-url.*credentials/],
    [{ allowedHosts: ['https://sandbox.example.com'] }, /--allowed-host.*without scheme or port/],
    [{ allowedHosts: ['sandbox.example.com:443'] }, /--allowed-host/],
    [{ allowedOrigins: ['https://app.example.com/path'] }, /--allowed-origin.*no path/],
    [{ allowedOrigins: ['app.example.com'] }, /--allowed-origin/],
    [{ allowedOrigins: ['null'] }, /--allowed-origin/],
  ])('%j is refused with a message naming the flag', (options, message) => {
    expect(() => checkTrustOptions(options)).toThrow(TrustOptionError);
    expect(() => checkTrustOptions(options)).toThrow(message);
  });

  it('accepts good values', () => {
    expect(
      checkTrustOptions({
        publicUrl: 'https://Sandbox.Example.com:8443/',
        allowedHosts: ['*', '.example.com', 'a.b'],
        allowedOrigins: ['http://localhost:5173'],
      }),
    ).toBe('https://sandbox.example.com:8443');
  });

  it("--host given as a name is the origin's host: clients use that name", async () => {
    const server = await onPort({ host: 'localhost' });
    try {
      expect(server.origin).toBe(`http://localhost:${server.port}`);
      expect(server.url).toMatch(/^http:\/\/(127\.0\.0\.1|\[::1\]):\d+\/v1$/);
      const meta = await fetch(`${new URL(server.url).origin}/.well-known/oauth-authorization-server`);
      expect((await meta.json()).issuer).toBe(`http://localhost:${server.port}`);
    } finally {
      await server.close();
    }
  });

  it('a wildcard bind is not loopback, uses 127.0.0.1 and warns to set --public-url', async () => {
    const server = await onPort({ host: '0.0.0.0' });
    try {
      expect(server.origin).toBe(`http://127.0.0.1:${server.port}`);
      expect(server.notes.join('\n')).toMatch(/warning: listening on every interface.*--public-url/);
      // Not loopback: sign-in asks for a token, no account chooser.
      const page = await send(server.port, 'GET', '/dashboard/sign-in', { host: `127.0.0.1:${server.port}` });
      expect(page.status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('startServer (the library) takes the same trust options', () => {
  it('publicUrl and allowedHosts reach the running server', async () => {
    const { startServer } = await import('../../src/index.js');
    const server = await startServer({
      seed: ['fixtures/demo.json'],
      publicUrl: 'https://ci.example.test',
      allowedHosts: ['ci.example.test'],
    });
    try {
      const port = Number(new URL(server.url).port);
      const meta = await send(port, 'GET', '/.well-known/oauth-authorization-server', { host: 'ci.example.test' });
      expect([meta.status, meta.json.issuer]).toEqual([200, 'https://ci.example.test']);
      expect((await send(port, 'GET', '/healthz', { host: 'other.example.test' })).status).toBe(421);
      // Its own in-process control calls still pass.
      expect(await server.requests({ limit: 1 })).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
