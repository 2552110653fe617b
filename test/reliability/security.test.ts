// Intruders: every operation × every way of being refused gives the decided status and code and
// changes nothing; tokens never reach the disk in clear; headers; slow clients are cut off.
import { readFileSync, existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../src/contract/operations.js';
import { App } from '../../src/server/app.js';
import { errorLog } from '../../src/server/error-log.js';
import { listen, type RunningServer } from '../../src/server/http.js';
import { hashToken, tokenId } from '../../src/store/fixtures/import.js';
import { extendServer } from '../../src/server/extend.js';
import { startLocalServer, type LocalServer } from '../../src/server/serve.js';
import { authorizeUrl, FormBrowser, pkce, tokenRequest } from '../support/oauth.js';
import http from 'node:http';
import { ProfileStore } from '../../src/cli/config.js';
import { createFactory } from '../../src/cli/factory.js';
import { fakeIO } from '../support/cli.js';
import { DEMO, demo, inProcess, onPort, tempDir, TestClock, type InProcess, fileStoreOf } from '../support/server.js';
import {
  bearerOps,
  checkAnswer,
  foreignId,
  headerOf,
  isImplemented,
  LEAK,
  ops,
  pathParams,
  rawRequest,
  storeState,
  tokenOps,
  urlFor,
  validBody,
} from './attack.js';

interface Refusal {
  name: string;
  /** Which operations the row applies to. */
  applies(op: AnyOperation): boolean;
  authorization?: string | ((op: AnyOperation) => string);
  params?: (op: AnyOperation) => Record<string, string>;
  status: number;
  code: (op: AnyOperation) => string;
}

/** A token of fixtures/demo.json lacking the operation's ability. */
const lacking = (op: AnyOperation) => (op.ability === 'content:read' ? demo.support : demo.contentReader);

const refusals: Refusal[] = [
  { name: 'no token', applies: () => true, status: 401, code: () => 'unauthenticated' },
  {
    name: 'malformed header (no scheme)',
    applies: () => true,
    authorization: demo.owner,
    status: 401,
    code: () => 'invalid_token',
  },
  {
    name: 'malformed header (Basic)',
    applies: () => true,
    authorization: `Basic ${Buffer.from('a:b').toString('base64')}`,
    status: 401,
    code: () => 'invalid_token',
  },
  {
    name: 'malformed header (two tokens)',
    applies: () => true,
    authorization: `Bearer ${demo.owner} ${demo.owner}`,
    status: 401,
    code: () => 'invalid_token',
  },
  {
    name: 'unknown token',
    applies: () => true,
    authorization: `Bearer wcm_pat_${'Z'.repeat(40)}`,
    status: 401,
    code: () => 'invalid_token',
  },
  {
    name: 'token one character off',
    applies: () => true,
    authorization: `Bearer ${demo.owner.slice(0, -1)}j`,
    status: 401,
    code: () => 'invalid_token',
  },
  {
    name: 'revoked token',
    applies: () => true,
    authorization: `Bearer ${demo.revoked}`,
    status: 401,
    code: () => 'invalid_token',
  },
  {
    name: 'expired token',
    applies: () => true,
    authorization: `Bearer ${demo.expired}`,
    status: 401,
    code: () => 'invalid_token',
  },
  {
    name: 'missing ability',
    applies: (op) => op.access === 'bearer',
    authorization: (op) => `Bearer ${lacking(op)}`,
    status: 403,
    code: () => 'insufficient_ability',
  },
  {
    name: "other workspace's member",
    applies: (op) => op.access === 'bearer',
    authorization: `Bearer ${demo.owner}`,
    params: () => ({ workspace: demo.ws3 }),
    status: 403,
    code: () => 'not_a_member',
  },
  {
    name: 'workspace that does not exist (same answer: no probing)',
    applies: (op) => op.access === 'bearer',
    authorization: `Bearer ${demo.owner}`,
    params: () => ({ workspace: '00000000-0000-4000-8000-000000000000' }),
    status: 403,
    code: () => 'not_a_member',
  },
  // OAuth access tokens (docs/oauth.md): bound to one audience, narrowed to their granted workspaces, ended with their grant.
  {
    name: 'OAuth token for another audience (wcm-mcp)',
    applies: () => true,
    authorization: `Bearer ${demo.oauthMcp}`,
    status: 401,
    code: () => 'invalid_token',
  },
  {
    name: 'OAuth token of a revoked grant',
    applies: () => true,
    authorization: `Bearer ${demo.oauthRevokedGrant}`,
    status: 401,
    code: () => 'invalid_token',
  },
  {
    // Grant and application management refuses every OAuth token before looking at the workspace.
    name: 'OAuth token without a grant for the workspace',
    applies: (op) => op.access === 'bearer',
    authorization: `Bearer ${demo.oauthBlueFernOnly}`,
    status: 403,
    code: (op) => (op.personal ? 'personal_token_required' : 'not_a_member'),
  },
  {
    // docs/security.md#oauth: grants and applications are managed with a personal token, never an OAuth token.
    name: 'grant management by an OAuth token (granted the workspace)',
    applies: (op) => !!op.personal,
    authorization: `Bearer ${demo.oauthBlueFernOnly}`,
    params: (op): Record<string, string> => (op.path.includes('{workspace}') ? { workspace: demo.ws2 } : {}),
    status: 403,
    code: () => 'personal_token_required',
  },
  {
    name: 'workspace id that is not a uuid',
    applies: (op) => op.access === 'bearer',
    authorization: `Bearer ${demo.owner}`,
    params: () => ({ workspace: 'not-a-uuid' }),
    status: 404,
    code: () => 'workspace_not_found',
  },
];

/** Rows for a resource id of workspace 2/3 under workspace 1's path (the owner reaches both 1 and 2). */
const foreignRows = bearerOps.flatMap((op) =>
  pathParams(op)
    .filter((p) => foreignId(op, p) !== undefined)
    .map((p) => ({ op, param: p, code: op.notFound?.[p] ?? 'not_found' })),
);

const matrix = tokenOps.flatMap((op) =>
  refusals.filter((r) => r.applies(op)).map((r) => [op.operationId, r.name, op, r] as const),
);

describe('operation × refusal matrix (in-process)', () => {
  let s: InProcess;
  beforeAll(async () => {
    s = await inProcess({ clock: new TestClock() });
  });
  afterAll(async () => {
    await s.close();
  });

  async function send(op: AnyOperation, authorization: string | undefined, params: Record<string, string> = {}) {
    const headers: Record<string, string> = { host: 'localhost', 'content-type': 'application/json' };
    if (authorization !== undefined) headers.authorization = authorization;
    const body = validBody(op);
    return s.app.handle({
      method: op.method,
      url: urlFor(op, params),
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  it('covers every bearer and token operation of the table', () => {
    expect(new Set(matrix.map((m) => m[0]))).toEqual(new Set(tokenOps.map((o) => o.operationId)));
    expect(bearerOps.length).toBeGreaterThan(10);
  });

  it.each(matrix)('%s, %s: refused with the decided status and code, nothing changed', async (_, name, op, r) => {
    const before = storeState(s.store);
    const auth = typeof r.authorization === 'function' ? r.authorization(op) : r.authorization;
    const res = await send(op, auth, r.params?.(op));
    checkAnswer(res, `${op.operationId} ${name}`);
    const p = JSON.parse(res.body);
    expect([res.status, p.code], res.body).toEqual([r.status, r.code(op)]);
    // RFC 9728 §5.1: every 401 says where the resource's metadata is (and invalid_token when a token was sent).
    if (r.status === 401) {
      expect(headerOf(res, 'www-authenticate')).toBe(
        `Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource"${r.code(op) === 'invalid_token' ? ', error="invalid_token"' : ''}`,
      );
    }
    if (name === 'missing ability') expect(p.detail).toContain(op.ability);
    expect(headerOf(res, 'cache-control')).toBe('no-store');
    expect(storeState(s.store)).toBe(before);
  });

  it.each(foreignRows.map((f) => [f.op.operationId, f.param, f] as const))(
    '%s with a %s of another workspace: 404 <resource>_not_found (or, not built yet, 501 after auth), nothing changed',
    async (_, param, f) => {
      const before = storeState(s.store);
      const res = await send(f.op, `Bearer ${demo.owner}`, { [param]: foreignId(f.op, param)! });
      checkAnswer(res, `${f.op.operationId} foreign ${param}`);
      const p = JSON.parse(res.body);
      if (isImplemented(f.op)) expect([res.status, p.code], res.body).toEqual([404, f.code]);
      else expect([res.status, p.code], res.body).toEqual([501, 'not_implemented']);
      expect(storeState(s.store)).toBe(before);
    },
  );

  it.each(tokenOps.map((op) => [op.operationId, op] as const))(
    '%s: the owner with valid ids passes every check (control row)',
    async (_, op) => {
      const res = await send(op, `Bearer ${demo.owner}`);
      checkAnswer(res, `${op.operationId} control`);
      if (isImplemented(op)) expect(res.status).toBe(op.status);
      else expect([res.status, JSON.parse(res.body).code]).toEqual([501, 'not_implemented']);
      expect(headerOf(res, 'cache-control')).toBe('no-store');
    },
  );

  it('every response carries nosniff, public and unauthenticated ones included', async () => {
    for (const op of ops) {
      const res = await s.app.handle({ method: op.method, url: urlFor(op), headers: { host: 'localhost' } });
      expect(headerOf(res, 'x-content-type-options'), op.operationId).toBe('nosniff');
    }
    for (const url of ['/healthz', '/v1/openapi.json', '/v1/nope', '/nope', '/api/v1/me']) {
      const res = await s.app.handle({ method: 'GET', url, headers: { host: 'localhost' } });
      expect(headerOf(res, 'x-content-type-options'), url).toBe('nosniff');
    }
  });

  it('an unexpected failure is a bare 500: no message, path or stack reaches the client', async () => {
    const secret = new Error(`ENOENT: open '/work/secret/store.json' at Object.openSync (node:fs:573:3)`);
    const app = new App({
      db: s.db,
      handlers: {
        getMe: () => {
          throw secret;
        },
      },
      around: [errorLog(() => undefined)],
    });
    const res = await app.handle({
      method: 'GET',
      url: '/v1/me',
      headers: { host: 'localhost', authorization: `Bearer ${demo.owner}` },
    });
    expect(res.status).toBe(500);
    expect(JSON.parse(res.body).code).toBe('internal_error');
    expect(res.body).not.toContain('ENOENT');
    expect(res.body).not.toMatch(LEAK);
  });
});

// docs/security.md#host-origin-and-cors: the Host allow-list and the Origin rule come before routing, authentication and
// every guard, for every operation of the table; nothing changes when they refuse.
describe('Host and Origin × every operation (in-process)', () => {
  let s: InProcess;
  beforeAll(async () => {
    s = await inProcess({ clock: new TestClock() });
  });
  afterAll(async () => {
    await s.close();
  });

  const hostRows = ops.flatMap((op) =>
    [
      'attacker.example',
      'attacker.example:4010',
      'localhost.attacker.example',
      '127.0.0.1.attacker.example',
      'x", error="injected',
    ].map((host) => [op.operationId, host, op] as const),
  );
  it.each(hostRows)('%s with Host %s: 421 host_not_allowed, no challenge, nothing changed', async (_, host, op) => {
    const before = storeState(s.store);
    const body = op.body ? JSON.stringify(validBody(op)) : undefined;
    const res = await s.app.handle({
      method: op.method,
      url: urlFor(op),
      headers: {
        host,
        authorization: `Bearer ${demo.owner}`,
        'content-type': 'application/json',
        'idempotency-key': 'host-row-key-1',
      },
      body,
    });
    checkAnswer(res, `${op.operationId} host ${host}`);
    expect([res.status, JSON.parse(res.body).code]).toEqual([421, 'host_not_allowed']);
    expect(headerOf(res, 'www-authenticate')).toBeUndefined();
    expect(storeState(s.store)).toBe(before);
  });

  const changing = ops.filter((op) => op.method !== 'GET');
  const originRows = changing.flatMap((op) =>
    ['https://evil.example', 'null', 'http://localhost.evil.example', 'https://127.0.0.1'].map(
      (origin) => [op.operationId, origin, op] as const,
    ),
  );
  it.each(originRows)('%s from Origin %s: 403 origin_not_allowed, nothing changed', async (_, origin, op) => {
    const before = storeState(s.store);
    const res = await s.app.handle({
      method: op.method,
      url: urlFor(op),
      headers: {
        host: 'localhost',
        origin,
        authorization: `Bearer ${demo.owner}`,
        'content-type': 'application/json',
        'idempotency-key': 'origin-row-key-1',
      },
      body: op.body ? JSON.stringify(validBody(op)) : undefined,
    });
    checkAnswer(res, `${op.operationId} origin ${origin}`);
    expect([res.status, JSON.parse(res.body).code]).toEqual([403, 'origin_not_allowed']);
    expect(headerOf(res, 'access-control-allow-origin')).toBeUndefined();
    expect(storeState(s.store)).toBe(before);
  });

  it.each(['http://localhost:6274', 'http://127.0.0.1:5173', 'http://[::1]:8080', 'http://localhost'])(
    "a loopback origin (%s) passes the rule: the owner's write is answered as without Origin",
    async (origin) => {
      const op = changing.find((o) => o.operationId === 'createListing')!;
      const res = await s.app.handle({
        method: op.method,
        url: urlFor(op),
        headers: {
          host: 'localhost',
          origin,
          authorization: `Bearer ${demo.owner}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(validBody(op)),
      });
      expect(res.status).toBe(201);
    },
  );
});

// DNS rebinding (issue 33): a page on attacker.example rebound to 127.0.0.1 drives a browser at the
// server. Its requests carry `Host: attacker.example:PORT` (and, for its own POSTs, that Origin).
// The whole OAuth walk must fail at its first step, and every later step on its own too.
describe('DNS rebinding: the register → sign-in → consent → token walk with a foreign Host', () => {
  let server: Awaited<ReturnType<typeof onPort>>;
  beforeAll(async () => {
    server = await onPort();
  });
  afterAll(async () => {
    await server.close();
  });

  function rebound(
    method: string,
    path: string,
    body?: string,
    type = 'application/x-www-form-urlencoded',
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
    const host = `attacker.example:${server.port}`;
    const headers: Record<string, string> = { host, connection: 'close' };
    if (method === 'POST') Object.assign(headers, { origin: `http://${host}`, 'content-type': type });
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('fails at its first step (dynamic registration: 421), and every later step is refused alike', async () => {
    const before = storeState(server.store);
    const register = await rebound(
      'POST',
      '/oauth/register',
      JSON.stringify({ client_name: 'Totally legit', redirect_uris: [`http://attacker.example:${server.port}/cb`] }),
      'application/json',
    );
    expect([register.status, JSON.parse(register.body).code]).toEqual([421, 'host_not_allowed']);
    // Had it got further, with the demo's public app instead:
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: demo.oauthAppAcme,
      redirect_uri: 'http://127.0.0.1:5931/callback',
      code_challenge: 'x'.repeat(43),
      code_challenge_method: 'S256',
      scope: 'content:read',
      state: 's',
    });
    const steps = [
      ['metadata', 'GET', '/.well-known/oauth-authorization-server', undefined],
      ['authorize', 'GET', `/oauth/authorize?${q}`, undefined],
      [
        'the account chooser',
        'GET',
        `/oauth/sign-in?return_to=${encodeURIComponent(`/oauth/authorize?${q}`)}`,
        undefined,
      ],
      ['sign-in', 'POST', '/oauth/sign-in', 'csrf=' + 'a'.repeat(43) + '&user=usr_ada'],
      ['consent', 'POST', '/oauth/authorize', `${q}&csrf=${'a'.repeat(43)}&decision=allow`],
      [
        'token',
        'POST',
        '/oauth/token',
        `grant_type=authorization_code&code=x&client_id=${demo.oauthAppAcme}&code_verifier=${'v'.repeat(43)}`,
      ],
      ['the dashboard', 'GET', '/dashboard', undefined],
      ['the API', 'GET', '/v1/me', undefined],
    ] as const;
    for (const [name, method, path, body] of steps) {
      const res = await rebound(method, path, body);
      expect([name, res.status, JSON.parse(res.body).code]).toEqual([name, 421, 'host_not_allowed']);
      expect(res.headers['set-cookie'], name).toBeUndefined();
      expect(res.body, name).not.toContain('usr_ada');
    }
    expect(storeState(server.store)).toBe(before);
  });
});

describe('tokens on disk', () => {
  it('the data file, its journal and an export never hold a demo token in clear, only hashes', async () => {
    const server = await onPort();
    try {
      const dataFile = path.join(server.dir, 'store.json');
      for (let i = 0; i < 5; i++) {
        const r = await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
          method: 'POST',
          headers: { authorization: `Bearer ${demo.ciWriter}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `t${i}`, template_slug: 'faq' }),
        });
        // ciWriter is not a member of workspace 1: refused, still nothing in clear anywhere.
        expect(r.status).toBe(403);
        const ok = await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
          method: 'POST',
          headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
          body: JSON.stringify({ title: `token ${demo.owner.slice(0, 12)} ${i}`, template_slug: 'faq' }),
        });
        expect(ok.status).toBe(201);
      }
      const { exportFixture } = await import('../../src/store/fixtures/import.js');
      const exported = JSON.stringify(exportFixture(server.store));
      const live = [dataFile, `${dataFile}.journal`]
        .filter(existsSync)
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n');
      await fileStoreOf(server.db).drain();
      const closedDir = server.dir;
      await fileStoreOf(server.db).close();
      const compacted = readFileSync(path.join(closedDir, 'store.json'), 'utf8');
      const tokens = [demo.owner, demo.contentReader, demo.support, demo.expired, demo.ciWriter, demo.revoked];
      for (const text of [live, compacted, exported]) {
        for (const t of tokens) expect(text.includes(t), `token ${t.slice(0, 16)}… in clear`).toBe(false);
        // What is there instead: the SHA-256 of each.
        for (const t of tokens) expect(text.includes(hashToken(t))).toBe(true);
      }
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});

describe('slow clients are cut off (headersTimeout / requestTimeout)', () => {
  let s: InProcess;
  let running: RunningServer;
  beforeAll(async () => {
    s = await inProcess();
    running = await listen(new App({ db: s.db }), { port: 0, headersTimeout: 1000, requestTimeout: 2000 });
  });
  afterAll(async () => {
    await running.close();
    await s.close();
  });

  /** Writes `head`, then one byte of `drip` every 100 ms until the server closes; resolves with what it said. */
  function trickle(head: string, drip: string): Promise<{ ms: number; answer: string }> {
    return new Promise((resolve) => {
      const started = Date.now();
      const sock = net.connect(running.port, '127.0.0.1');
      let answer = '';
      let i = 0;
      const timer = setInterval(() => {
        if (!sock.destroyed) sock.write(drip[i++ % drip.length]);
      }, 100);
      const end = () => {
        clearInterval(timer);
        resolve({ ms: Date.now() - started, answer });
      };
      sock.on('data', (d) => (answer += d.toString()));
      sock.on('close', end);
      sock.on('error', () => undefined);
      sock.on('connect', () => sock.write(head));
      // A server that never cuts it off fails the test rather than hanging it.
      setTimeout(() => sock.destroy(), 8000);
    });
  }

  it('headers sent a byte at a time forever: cut off after about headersTimeout, with a 408 problem', async () => {
    const before = storeState(s.store);
    const { ms, answer } = await trickle(
      `POST /v1/workspaces/${demo.ws1}/lists HTTP/1.1\r\nHost: localhost\r\nX-Slow: `,
      'abcdefgh',
    );
    expect(ms).toBeLessThan(4000);
    expect(ms).toBeGreaterThanOrEqual(900);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('application/problem+json');
    expect(answer).toContain('"code":"request_timeout"');
    expect(storeState(s.store)).toBe(before);
  });

  it('a body sent a byte at a time: cut off after about requestTimeout, nothing written', async () => {
    const before = storeState(s.store);
    const head = `POST /v1/workspaces/${demo.ws1}/lists HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${demo.owner}\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{"title":"`;
    const { ms, answer } = await trickle(head, 'x');
    expect(ms).toBeLessThan(5000);
    expect(ms).toBeGreaterThanOrEqual(1900);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(storeState(s.store)).toBe(before);
  });

  it('a client that is fast enough is served normally', async () => {
    const res = await rawRequest(running.port, {
      head: `GET /v1/me HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${demo.owner}\r\nConnection: close\r\n\r\n`,
    });
    expect(res.status).toBe(200);
    checkAnswer(res, 'fast client');
  });
});

// Issue 18: the CLI side of the matrix. A profile's token is bound to the origin it was saved
// for; every way of pointing a command elsewhere stops in the factory (where every command, and
// `wcm mcp`, gets its client) with exit 4, and the other host receives nothing.
describe('a saved token goes only to the origin it was saved for', () => {
  let spyServer: http.Server;
  let spyOrigin = '';
  const seen: Array<string | undefined> = [];
  let cfg: ReturnType<typeof tempDir>;
  const saved = `wcm_pat_${'B'.repeat(40)}`;
  beforeAll(async () => {
    spyServer = http.createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: [], meta: { request_id: 'r', next_cursor: null } }));
    });
    await new Promise<void>((resolve) => spyServer.listen(0, '127.0.0.2', resolve));
    spyOrigin = `http://127.0.0.2:${(spyServer.address() as net.AddressInfo).port}`;
    cfg = tempDir('wcm-bind-');
    const profiles = await ProfileStore.open({ WCM_CONFIG_DIR: cfg.dir });
    await profiles.set('default', { base_url: 'http://127.0.0.1:9/v1', token: saved, workspace: demo.ws1 });
    await profiles.set('spyhost', { base_url: `${spyOrigin}/api/v1`, token: saved, workspace: demo.ws1 });
  });
  afterAll(async () => {
    await new Promise((resolve) => spyServer.close(resolve));
    cfg.cleanup();
  });

  const ways: Array<[string, (o: string) => { flags: Record<string, string>; env: Record<string, string> }]> = [
    ['--base-url', (o) => ({ flags: { baseUrl: `${o}/v1` }, env: {} })],
    ['WCM_BASE_URL', (o) => ({ flags: {}, env: { WCM_BASE_URL: `${o}/v1` } })],
    ['--profile with --base-url', (o) => ({ flags: { profile: 'default', baseUrl: `${o}/v1` }, env: {} })],
    ['WCM_PROFILE with WCM_BASE_URL', (o) => ({ flags: {}, env: { WCM_PROFILE: 'default', WCM_BASE_URL: `${o}/v1` } })],
    ['--base-url /api/v1 of another origin', (o) => ({ flags: { baseUrl: `${o}/api/v1` }, env: {} })],
  ];
  const others: Array<[string, () => string]> = [
    ['another address', () => spyOrigin],
    ['another port of the same address', () => 'http://127.0.0.1:10'],
    ['another scheme', () => 'https://127.0.0.1:9'],
  ];
  const rows = ways.flatMap(([how, point]) => others.map(([what, origin]) => [how, what, point, origin] as const));

  it.each(rows)('%s to %s: exit 4 naming the host, nothing sent', async (_how, _what, point, origin) => {
    const { flags, env } = point(origin());
    seen.length = 0;
    const f = createFactory(fakeIO(), { WCM_CONFIG_DIR: cfg.dir, ...env }, flags);
    const err = await f.client().then(
      () => null,
      (e: { exitCode?: number; message: string; hint?: string }) => e,
    );
    expect(err?.exitCode).toBe(4);
    expect(err?.message).toContain(`No token saved for ${new URL(origin()).origin}`);
    expect(err?.hint).toContain('wcm auth login --base-url');
    expect(`${err?.message} ${err?.hint}`).not.toContain(saved);
    expect(seen).toEqual([]);
  });

  it('the same origin under /v1 instead of /api/v1 gets the token; WCM_TOKEN goes anywhere', async () => {
    seen.length = 0;
    const own = createFactory(
      fakeIO(),
      { WCM_CONFIG_DIR: cfg.dir },
      { profile: 'spyhost', baseUrl: `${spyOrigin}/v1` },
    );
    await (await own.client()).call('getMe');
    const explicit = createFactory(
      fakeIO(),
      { WCM_CONFIG_DIR: cfg.dir, WCM_TOKEN: 'wcm_pat_explicit' },
      { baseUrl: `${spyOrigin}/v1` },
    );
    await (await explicit.client()).call('getMe');
    expect(seen).toEqual([`Bearer ${saved}`, 'Bearer wcm_pat_explicit']);
  });
});

// docs/security.md#signing-in-on-pages on a server bound to the wildcard address (not loopback), reached at 127.0.0.1: a
// personal token signs in, and the session is limited by that token's abilities and workspaces for
// consent and for the dashboard, and ends with the token.
describe('sign-in on a network bind is limited by the signing-in personal token', () => {
  const APP = demo.oauthAppAcme;
  const REDIRECT = 'http://127.0.0.1:5931/callback';
  const ALL =
    'workspaces:read workspaces:write content:read content:write engagements:read engagements:manage actions:request';
  /** Bo's token for Acme Coffee only, with content:read. */
  const BO_ACME = 'wcm_pat_boAcmeOnlySecurityRow0123456789abcdefgh';
  let server: LocalServer;
  let origin: string;
  let dir: ReturnType<typeof tempDir>;
  beforeAll(async () => {
    dir = tempDir();
    server = await startLocalServer({
      dataFile: path.join(dir.dir, 'store.json'),
      host: '0.0.0.0',
      port: 0,
      seeds: [DEMO],
      extend: extendServer,
      env: {},
      log: () => undefined,
    });
    origin = `http://127.0.0.1:${server.port}`;
    const sha = hashToken(BO_ACME);
    await fileStoreOf(server.db).transact((tx) =>
      tx.put('tokens', {
        id: tokenId(sha),
        token_sha256: sha,
        user_id: 'usr_bo',
        name: 'acme',
        abilities: ['content:read'],
        expires_at: null,
        revoked_at: null,
        workspace_ids: [demo.ws1],
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    dir.cleanup();
  });

  /** Signs in at `url`'s sign-in page with `token`; the browser and the page it lands on. */
  async function signedIn(url: string, token: string) {
    const browser = new FormBrowser(origin);
    const first = await browser.follow(url);
    expect(first.url).toContain('/sign-in?return_to=');
    expect(first.body).toContain('name="token"');
    expect(first.body).not.toContain('Bo Carter'); // no account chooser off loopback
    return { browser, landed: await browser.signInWithToken(first, token) };
  }
  const consentFor = (token: string, scope = ALL) =>
    signedIn(
      authorizeUrl(origin, {
        response_type: 'code',
        client_id: APP,
        redirect_uri: REDIRECT,
        scope,
        state: 's',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
      token,
    );
  const grants = () =>
    [...fileStoreOf(server.db).values('oauth_grants')].length +
    [...fileStoreOf(server.db).values('oauth_codes')].length;

  it('a content:read token: consent offers content:read only, of all seven asked', async () => {
    const { landed } = await consentFor(demo.contentReader);
    expect(landed.res.status).toBe(200);
    expect(landed.body).toContain('<input type="checkbox" name="ability_content:read" value="on" checked>');
    for (const a of ALL.split(' ').filter((x) => x !== 'content:read'))
      expect(landed.body).not.toContain(`name="ability_${a}"`);
    expect(landed.body).toContain('Not offered, because the token you signed in with does not have them');
  });

  it('a content:read token: a forged form asking for every ability is refused, nothing issued', async () => {
    const { browser, landed } = await consentFor(demo.contentReader);
    const before = grants();
    const form: Record<string, string> = {
      ...FormBrowser.hidden(landed.body),
      decision: 'approve',
      [`workspace_${demo.ws1}`]: 'on',
    };
    for (const a of ALL.split(' ')) form[`ability_${a}`] = 'on';
    const res = await browser.request('/oauth/authorize', { form });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('which this consent did not offer');
    expect(grants()).toBe(before);
  });

  it('a content:read token: approving mints a content:read token, not an all-abilities one', async () => {
    const { verifier, challenge } = pkce();
    const { browser, landed } = await signedIn(
      authorizeUrl(origin, {
        response_type: 'code',
        client_id: APP,
        redirect_uri: REDIRECT,
        scope: ALL,
        state: 's',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
      demo.contentReader,
    );
    const res = await browser.decide(landed.body, 'approve', [demo.ws1]);
    expect(res.status).toBe(303);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const t = await tokenRequest(origin, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: APP,
      code_verifier: verifier,
    });
    expect(t.status).toBe(200);
    expect(t.json.scope).toBe('content:read');
    const threads = await fetch(`${origin}/v1/workspaces/${demo.ws1}/threads`, {
      headers: { authorization: `Bearer ${t.json.access_token}` },
    });
    expect(threads.status).toBe(403);
  });

  it('a content:read token asked only for engagements: nothing is offered, Authorize is disabled, a forged approval refused', async () => {
    const { browser, landed } = await consentFor(demo.contentReader, 'engagements:read engagements:manage');
    expect(landed.res.status).toBe(200);
    expect(landed.body).toContain('Nothing: the token you signed in with has none of the abilities asked for.');
    expect(landed.body).toMatch(/<button type="submit" name="decision" value="approve"[^>]* disabled>/);
    const before = grants();
    const res = await browser.request('/oauth/authorize', {
      form: {
        ...FormBrowser.hidden(landed.body),
        decision: 'approve',
        'ability_engagements:read': 'on',
        [`workspace_${demo.ws1}`]: 'on',
      },
    });
    expect(res.status).toBe(400);
    expect(grants()).toBe(before);
  });

  it('a token narrowed to one workspace: consent offers that workspace only, another is refused', async () => {
    const { browser, landed } = await consentFor(BO_ACME, 'content:read');
    expect(landed.body).toContain(`name="workspace_${demo.ws1}" value="on" checked`); // the only one: pre-ticked
    expect(landed.body).not.toContain(`workspace_${demo.ws2}`);
    const before = grants();
    const res = await browser.request('/oauth/authorize', {
      form: {
        ...FormBrowser.hidden(landed.body),
        decision: 'approve',
        'ability_content:read': 'on',
        [`workspace_${demo.ws2}`]: 'on',
      },
    });
    expect(res.status).toBe(400);
    expect(grants()).toBe(before);
  });

  it('a content:read token: the dashboard hides and refuses (403) the sections it cannot read', async () => {
    const { browser, landed } = await signedIn(`${origin}/dashboard/workspaces/${demo.ws1}`, demo.contentReader);
    expect(landed.res.status).toBe(200);
    expect(landed.body).toContain(`/dashboard/workspaces/${demo.ws1}/lists`);
    expect(landed.body).not.toContain(`/dashboard/workspaces/${demo.ws1}/threads`);
    for (const [rest, need] of [
      ['threads', 'engagements:read'],
      ['orders', 'engagements:read'],
      ['oauth', 'workspaces:read'],
    ]) {
      const res = await browser.request(`/dashboard/workspaces/${demo.ws1}/${rest}`);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain(`This page needs the <code>${need}</code> ability`);
    }
    expect((await browser.request(`/dashboard/workspaces/${demo.ws1}/lists`)).status).toBe(200);
  });

  it('a token narrowed to one workspace: the dashboard shows no other', async () => {
    const { browser, landed } = await signedIn(`${origin}/dashboard`, BO_ACME);
    expect(landed.body).toContain('Acme Coffee');
    expect(landed.body).not.toContain('Blue Fern Studio');
    expect((await browser.request(`/dashboard/workspaces/${demo.ws2}/lists`)).status).toBe(404);
  });

  it('revoking the token ends its sessions, on the dashboard and on the consent page', async () => {
    const token = 'wcm_pat_boRevokedSecurityRow0123456789abcdefghi';
    const sha = hashToken(token);
    await fileStoreOf(server.db).transact((tx) =>
      tx.put('tokens', {
        id: tokenId(sha),
        token_sha256: sha,
        user_id: 'usr_bo',
        name: 'x',
        abilities: ['content:read'],
        expires_at: null,
        revoked_at: null,
      }),
    );
    const dash = await signedIn(`${origin}/dashboard/workspaces/${demo.ws1}/lists`, token);
    expect(dash.landed.res.status).toBe(200);
    const consent = await consentFor(token, 'content:read');
    expect(consent.landed.res.status).toBe(200);
    const rec = fileStoreOf(server.db).get('tokens', tokenId(sha))!;
    await fileStoreOf(server.db).transact((tx) => tx.put('tokens', { ...rec, revoked_at: new Date().toISOString() }));
    const after = await dash.browser.request(`/dashboard/workspaces/${demo.ws1}/lists`);
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toContain('ended=token');
    const before = grants();
    const decided = await consent.browser.decide(consent.landed.body, 'approve', [demo.ws1]);
    expect(decided.status).toBe(403);
    expect(grants()).toBe(before);
  });

  it('a CSRF value the client chose (same in cookie and field) does not sign in', async () => {
    const chosen = 'C'.repeat(43);
    const res = await fetch(`${origin}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: `wcm_csrf=${chosen}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf: chosen, token: demo.owner }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie().join()).not.toContain('wcm_session=');
  });
});
