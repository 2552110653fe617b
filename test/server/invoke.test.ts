import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationList, operations } from '../../src/contract/operations.js';
import { App } from '../../src/server/app.js';
import { authenticate } from '../../src/server/auth.js';
import { Reply } from '../../src/server/context.js';
import { handlers } from '../../src/api/handlers.js';
import { invoke } from '../../src/server/invoke.js';
import { dashboardEnv, type DashboardEnv } from '../support/dashboard.js';
import { demo, inProcess, onPort, sendJson, type InProcess } from '../support/server.js';

const info = (app: App) => ({
  id: 'req_test',
  method: 'GET',
  path: '/v1/me',
  origin: app.trust.origin,
  baseUrl: `${app.trust.origin}/v1`,
  headers: {},
  remoteAddress: '127.0.0.1',
  rawBody: Buffer.alloc(0),
});

describe('every operation of the contract table', () => {
  // The server's 501 for a handler nobody wrote is for a contract ahead of its server: this server has none.
  it('has a handler', () => {
    const missing = operationList.map((op) => op.operationId).filter((id) => typeof handlers[id] !== 'function');
    expect(missing).toEqual([]);
  });
});

describe('invoke', () => {
  let t: InProcess;
  beforeAll(async () => {
    // On the postgres project inProcess's engine is PostgreSQL's, loaded with the demo.
    t = await inProcess();
  });
  afterAll(() => t.close());

  it('returns the data, the status and a list page as data, with ids in any case', async () => {
    const owner = await authenticate(t.app.db, `Bearer ${demo.owner}`);
    const got = await invoke(
      t.app,
      operations.getListing,
      { params: { workspace: demo.ws1.toUpperCase(), list: demo.knowledgeList.toUpperCase() } },
      owner,
      { request: info(t.app) },
    ).catch((e: unknown) => e);
    // A knowledge list is no listing: the listing's own 404, found after the ids were lower-cased.
    expect(got).toMatchObject({ status: 404, code: 'listing_not_found' });
    const page = await invoke(
      t.app,
      operations.listListings,
      { params: { workspace: demo.ws1 }, query: '?limit=1' },
      owner,
      {
        request: info(t.app),
      },
    );
    expect(page.status).toBe(200);
    expect(page.page?.items).toHaveLength(1);
    expect(page.page?.next_cursor).toEqual(expect.any(String));
  });

  it('checks the principal: a token without the ability, a session outside the workspace', async () => {
    const reader = await authenticate(t.app.db, `Bearer ${demo.contentReader}`);
    await expect(
      invoke(t.app, operations.listThreads, { params: { workspace: demo.ws1 } }, reader, { request: info(t.app) }),
    ).rejects.toMatchObject({ status: 403, code: 'insufficient_ability' });
    const ada = (await t.app.db.read((tx) => tx.get('users', 'usr_ada')))!;
    const session = { session: { user: ada, abilities: ['content:read' as const], workspaceIds: [demo.ws2] } };
    await expect(
      invoke(t.app, operations.listListings, { params: { workspace: demo.ws1 } }, session, { request: info(t.app) }),
    ).rejects.toMatchObject({ status: 403, code: 'not_a_member' });
    await expect(
      invoke(t.app, operations.listThreads, { params: { workspace: demo.ws2 } }, session, { request: info(t.app) }),
    ).rejects.toMatchObject({ status: 403, code: 'insufficient_ability' });
  });

  it('lets an operation answer 204: no data through invoke, an empty body over HTTP', async () => {
    const app = new App({ db: t.db, handlers: { ...handlers, getMe: () => new Reply({ ignored: true }, 204) } });
    const owner = await authenticate(t.app.db, `Bearer ${demo.owner}`);
    const result = await invoke(app, operations.getMe, { params: {} }, owner, { request: info(app) });
    expect(result).toEqual({ status: 204, data: undefined, headers: {} });
    const res = await sendJson(app, { url: '/v1/me', token: demo.owner });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['Content-Type']).toBeUndefined();
    expect(res.headers['X-Request-Id']).toMatch(/\S/);
    expect(res.headers['Cache-Control']).toBe('no-store');
  });
});

describe('the dashboard reads through invoke', () => {
  let env: DashboardEnv;
  let ada: string;
  beforeAll(async () => {
    env = await dashboardEnv();
    ada = await env.signInAs('usr_ada');
  });
  afterAll(() => env.close());

  it('a filter the operation refuses is a 400 page saying the address is at fault, naming the field', async () => {
    const res = await env.page(`/dashboard/workspaces/${demo.ws1}/threads?view=sideways`, ada);
    expect(res.status).toBe(400);
    expect(res.body).toContain('Invalid filters in the address.');
    expect(res.body).toContain('<code>view</code>');
  });

  it('finds a record by its id in upper case, as the API does', async () => {
    const res = await env.page(`/dashboard/workspaces/${demo.ws1}/forms/${demo.formCatering.toUpperCase()}`, ada);
    expect(res.status).toBe(200);
    expect(res.body).toContain('Number of guests');
  });
});

describe('/mcp runs a tool through the operation, not a second request', () => {
  let server: Awaited<ReturnType<typeof onPort>>;
  beforeAll(async () => {
    server = await onPort();
  });
  afterAll(() => server.close());

  it('one tool call is one entry in the request log, naming the operation it ran', async () => {
    const res = await fetch(`${new URL(server.url).origin}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${demo.owner}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getMe', arguments: {} } }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).result.structuredContent.data.user.id).toBe('usr_ada');
    const log = await fetch(`${new URL(server.url).origin}/_emulator/requests`, {
      headers: { authorization: `Bearer ${server.adminToken}` },
    }).then((r) => r.json());
    const entries = (log.data as Array<{ method: string; path: string; operation: string | null }>).map(
      (e) => `${e.method} ${e.path} ${e.operation}`,
    );
    expect(entries).toEqual(['POST /mcp getMe']);
  });
});
