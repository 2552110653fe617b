import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANY, Router } from '../../src/server/router.js';
import { demo, onPort, sendJson } from '../support/server.js';

// One router for /v1 and every area: routes by method and pattern, sub-routers under a prefix,
// mounts for a whole subtree; 404 and 405 (with Allow) where no area answers for itself.

describe('Router', () => {
  const v1 = new Router<string>({ headAsGet: true, trailingSlash: true })
    .on('GET', '/lists', 'listListings')
    .on('POST', '/lists', 'createListing')
    .on('GET', '/lists/{list}', 'getListing')
    .on('GET', '/lists/mine', 'myLists');
  const r = new Router<string>()
    .route('/v1', v1)
    .on(['GET', 'HEAD'], '/oauth/authorize', 'authorize')
    .on('POST', '/oauth/token', 'token')
    .on(ANY, '/oauth/token', 'postOnly')
    .on('GET', '/dashboard/workspaces/{workspace}/lists', 'lists page')
    .on('GET', '/dashboard/workspaces/{workspace}/*', 'no such page')
    .mount('/oauth', 'oauth 404 page')
    .mount('/dashboard', 'dashboard fallback');

  it.each([
    ['GET', '/v1/lists', { kind: 'ok', target: 'listListings', params: {} }],
    ['HEAD', '/v1/lists', { kind: 'ok', target: 'listListings', params: {} }],
    ['GET', '/v1/lists/', { kind: 'ok', target: 'listListings', params: {} }],
    ['GET', '/v1/lists/a%20b', { kind: 'ok', target: 'getListing', params: { list: 'a b' } }],
    ['GET', '/v1/lists/%E0', { kind: 'ok', target: 'getListing', params: { list: '%E0' } }],
    ['GET', '/v1/lists/mine', { kind: 'ok', target: 'myLists', params: {} }],
    ['DELETE', '/v1/lists', { kind: 'method', allow: ['GET', 'POST', 'HEAD'] }],
    ['GET', '/v1/nope', { kind: 'none' }],
    ['GET', '/v1x/lists', { kind: 'none' }],
    ['HEAD', '/oauth/authorize', { kind: 'ok', target: 'authorize', params: {} }],
    ['POST', '/oauth/token', { kind: 'ok', target: 'token', params: {} }],
    ['GET', '/oauth/token', { kind: 'ok', target: 'postOnly', params: {} }],
    ['GET', '/oauth/token/', { kind: 'ok', target: 'oauth 404 page', params: {} }],
    ['PUT', '/oauth/authorize', { kind: 'ok', target: 'oauth 404 page', params: {} }],
    ['GET', '/oauth', { kind: 'ok', target: 'oauth 404 page', params: {} }],
    ['GET', '/oauthx', { kind: 'none' }],
    ['GET', '/dashboard/workspaces/w1/lists', { kind: 'ok', target: 'lists page', params: { workspace: 'w1' } }],
    ['GET', '/dashboard/workspaces/w1/a/b', { kind: 'ok', target: 'no such page', params: { workspace: 'w1' } }],
    ['POST', '/dashboard/workspaces/w1/lists', { kind: 'ok', target: 'dashboard fallback', params: {} }],
  ])('%s %s', (method, path, expected) => {
    expect(r.match(method, path)).toEqual(expected);
  });

  it('without headAsGet, HEAD reaches only a route that names it, and a 405 lists exactly what is there', () => {
    const plain = new Router<string>().on('GET', '/x', 'x');
    expect(plain.match('HEAD', '/x')).toEqual({ kind: 'method', allow: ['GET'] });
    expect(plain.match('GET', '/x/')).toEqual({ kind: 'none' });
  });
});

describe('the App routes every area through one router, behind the Host and Origin checks', () => {
  let server: Awaited<ReturnType<typeof onPort>>;
  beforeAll(async () => {
    server = await onPort();
  });
  afterAll(async () => {
    await server?.close();
  });
  const send = (method: string, url: string, headers: Record<string, string> = {}) =>
    sendJson(server.app, { method, url, headers });
  const admin = () => ({ authorization: `Bearer ${server.adminToken}` });
  const owner = { authorization: `Bearer ${demo.owner}` };
  const lists = `/v1/workspaces/${demo.ws1}/lists`;

  it.each([
    ['a /v1 route', 'GET', lists, owner, 200, undefined],
    ['a /v1 route under /api/v1', 'GET', `/api${lists}`, owner, 200, undefined],
    ['a /v1 path with another method', 'DELETE', lists, owner, 405, 'method_not_allowed'],
    ['no /v1 route', 'GET', '/v1/nope', {}, 404, 'route_not_found'],
    ['no route at all', 'GET', '/nope', {}, 404, 'route_not_found'],
    ['/healthz', 'HEAD', '/healthz', {}, 200, undefined],
    ['/healthz with another method', 'POST', '/healthz', {}, 405, 'method_not_allowed'],
    ['the OpenAPI document, GET only', 'HEAD', '/v1/openapi.json', {}, 405, 'method_not_allowed'],
    ["a mount's route", 'GET', '/.well-known/oauth-authorization-server', {}, 200, undefined],
    ["a mount's route, another method", 'POST', '/.well-known/oauth-protected-resource', {}, 405, 'method_not_allowed'],
    ['a path in a mount that no route names', 'GET', '/.well-known/nope', {}, 404, 'route_not_found'],
    ['the control plane asks for its token before it routes', 'GET', '/_emulator/nope', {}, 401, 'unauthenticated'],
  ] as const)('%s: %s %s', async (_, method, url, headers, status, code) => {
    const res = await send(method, url, headers);
    expect(res.status).toBe(status);
    if (code) expect(res.json.code).toBe(code);
  });

  it('404 and 405 say what there is: the route, the methods in Allow, the base paths', async () => {
    const wrong = await send('DELETE', lists, owner);
    expect(wrong.headers.Allow).toBe('POST, GET, HEAD');
    expect(wrong.json.detail).toBe('Allowed methods: POST, GET, HEAD.');
    expect((await send('POST', '/healthz')).headers.Allow).toBe('GET');
    expect((await send('POST', '/.well-known/oauth-protected-resource')).headers.Allow).toBe('GET, HEAD');
    expect((await send('GET', '/v1/nope')).json.detail).toBe('No route for `GET /v1/nope`.');
    expect((await send('GET', '/nope')).json.detail).toBe(
      'No route for `GET /nope`: API paths start with /v1 or /api/v1.',
    );
  });

  it('areas answer for their own paths: OAuth endpoints, the control plane, the dashboard', async () => {
    const token = await send('GET', '/oauth/token');
    expect([token.status, token.headers.Allow, token.json.error]).toEqual([405, 'POST', 'invalid_request']);
    const page = await send('GET', '/oauth/nope');
    expect([page.status, page.headers['Content-Type']]).toEqual([404, 'text/html; charset=utf-8']);
    const faults = await send('GET', '/_emulator/faults', admin());
    expect([faults.status, faults.json.data]).toEqual([200, []]);
    const patch = await send('PATCH', '/_emulator/faults', admin());
    expect([patch.status, patch.json.detail]).toEqual([
      404,
      'No control route `PATCH /faults`: reset, snapshots, faults, clock, requests, webhook-secret.',
    ]);
    const dash = await send('GET', '/dashboard/workspaces/x/lists');
    expect(dash.status).toBe(303);
    expect(dash.headers.Location).toMatch(/^\/dashboard\/sign-in\?return_to=/);
  });

  it('a foreign Host is 421 before anything else: routing, auth, methods, preflights, areas', async () => {
    const evil = { host: 'evil.example' };
    const rows: Array<[string, string, Record<string, string>]> = [
      ['GET', lists, { authorization: 'Bearer wcm_pat_nobody' }],
      ['DELETE', lists, owner],
      ['GET', '/nope', {}],
      ['GET', '/_emulator/faults', {}],
      ['POST', '/dashboard/workspaces/x', {}],
      ['OPTIONS', '/mcp', { origin: 'https://evil.example', 'access-control-request-method': 'POST' }],
      ['POST', '/oauth/token', { origin: 'null' }],
      ['GET', 'http://[bad', {}],
    ];
    for (const [method, url, headers] of rows) {
      const res = await send(method, url, { ...headers, ...evil });
      expect([method, url, res.status, res.json.code]).toEqual([method, url, 421, 'host_not_allowed']);
    }
  });

  it('the Origin rule comes next, before routing: a foreign page is refused even where no route is', async () => {
    const res = await send('POST', '/nope', { origin: 'https://evil.example' });
    expect([res.status, res.json.code]).toEqual([403, 'origin_not_allowed']);
    const allowed = await send('GET', '/.well-known/oauth-authorization-server', { origin: 'http://localhost:6274' });
    expect(allowed.headers['Access-Control-Allow-Origin']).toBe('http://localhost:6274');
  });

  it('the request log sees every answer: the operation the router reached, and refusals at the edge', async () => {
    await send('GET', lists, { ...owner, 'x-request-id': 'req_router_logged' });
    await send('GET', lists, { ...owner, host: 'evil.example', 'x-request-id': 'req_router_refused' });
    const log = await send('GET', '/_emulator/requests?all=true', admin());
    const entries = log.json.data as Array<{ request_id: string; operation: string | null; status: number }>;
    const logged = entries.find((e) => e.request_id === 'req_router_logged');
    expect(logged).toMatchObject({ operation: 'listListings', status: 200 });
    const refused = entries.find((e) => e.request_id === 'req_router_refused');
    expect(refused).toMatchObject({ operation: null, status: 421, problem: 'host_not_allowed' });
  });
});
