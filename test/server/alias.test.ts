import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationList } from '../../src/contract/operations.js';
import { handlers } from '../../src/api/handlers.js';
import { demo, inProcess, TestClock, type InProcess } from '../support/server.js';

/** Values a request creates afresh (ids, request ids) differ between two runs; everything else must not. */
const PG_TIME = process.env.WCM_TEST_STORE === 'postgres' ? /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g : /$^/g;

function normalize(body: string, known: Set<string>): unknown {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return body;
  }
  const walk = (v: unknown, key?: string): unknown => {
    if (typeof v === 'string' && key === 'request_id') return '<request_id>';
    if (Array.isArray(v)) return v.map((x) => walk(x));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    if (typeof v !== 'string') return v;
    // A problem names the path the caller used: the only place the base may show.
    const text = key === 'instance' || key === 'detail' ? v.replace(/\/api\/v1\//g, '/v1/') : v;
    return (
      text
        // On PostgreSQL a new record's times are the database's running clock, not the test's.
        .replace(PG_TIME, '<time>')
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) =>
          known.has(id) ? id : '<new-id>',
        )
        // Payment intents get fresh provider ids too (pi_…, and client secrets built on them).
        .replace(/\bpi_[A-Za-z0-9]+(_secret_[A-Za-z0-9]+)?/g, (_m, secret: string | undefined) =>
          secret ? '<new-pi>_secret_<new>' : '<new-pi>',
        )
    );
  };
  return walk(json);
}

const sampleParams: Record<string, string> = {
  workspace: demo.ws1,
  form: demo.formCatering,
  page: demo.pageAcme,
  list: demo.knowledgeList,
  article: demo.article4Versions,
  version: '1',
  thread: demo.newestThread,
  offer: demo.offerFixedUsd,
  agent: demo.agent1,
};
const sampleBodies: Record<string, unknown> = {
  createListing: { title: 'Alias', template_slug: 'faq', items: [{ title: 'Q' }] },
};

/** Every implemented operation, called once with demo ids and a token that may do everything. */
const implemented = operationList.filter((op) => handlers[op.operationId]);
const cases = implemented.map((op) => {
  const url = op.path.replace(/\{(\w+)\}/g, (_, n: string) => sampleParams[n] ?? 'x');
  return {
    id: op.operationId,
    method: op.method,
    url,
    body: op.method === 'GET' ? undefined : (sampleBodies[op.operationId] ?? {}),
  };
});

describe('/api/v1 answers like /v1', () => {
  let a: InProcess;
  let b: InProcess;
  let known: Set<string>;
  beforeAll(async () => {
    // Two identical stores with the same clock, so creating operations create the same things.
    a = await inProcess({ clock: new TestClock() });
    b = await inProcess({ clock: new TestClock() });
    known = new Set(
      JSON.stringify(await import('../../fixtures/demo.json', { with: { type: 'json' } })).match(
        /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
      ),
    );
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('covers the operations this branch implements', () => {
    expect(cases.map((c) => c.id)).toEqual(
      expect.arrayContaining(['getMe', 'listListingTemplates', 'createListing', 'listListings']),
    );
  });

  it.each(cases)('$id ($method $url)', async (c) => {
    const headers = { 'idempotency-key': 'alias-test-key-0001' };
    const req = (base: string) => ({
      method: c.method,
      url: `${base}${c.url}`,
      token: demo.owner,
      headers,
      json: c.body,
    });
    const [ra, rb] = [await a.request(req('/v1')), await b.request(req('/api/v1'))];
    expect(rb.status).toBe(ra.status);
    expect(normalize(rb.body, known)).toEqual(normalize(ra.body, known));
    expect(rb.headers['Content-Type']).toBe(ra.headers['Content-Type']);
  });

  // The same instance, both bases: reads, cursors and errors agree.
  it.each([
    ['a page with a cursor', 'GET', `/workspaces/${demo.ws1}/lists?limit=2`, demo.owner],
    ['templates paged', 'GET', '/setup/listing-templates?limit=3', demo.contentReader],
    ['no token', 'GET', `/workspaces/${demo.ws1}/lists`, undefined],
    ['missing ability', 'POST', `/workspaces/${demo.ws1}/lists`, demo.contentReader],
    ['non-member', 'GET', `/workspaces/${demo.ws1}/lists`, demo.ciWriter],
    ['malformed workspace', 'GET', '/workspaces/nope/lists', demo.owner],
    ['wrong method', 'PUT', `/workspaces/${demo.ws1}/lists`, demo.owner],
    ['unknown route', 'GET', '/nowhere', demo.owner],
    ['bad limit', 'GET', `/workspaces/${demo.ws1}/lists?limit=0`, demo.owner],
    ['the OpenAPI document', 'GET', '/openapi.json', undefined],
  ])('%s', async (_name, method, url, token) => {
    const json = method === 'POST' ? { title: 'T', template_slug: 'faq' } : undefined;
    const ra = await a.request({ method, url: `/v1${url}`, token, json });
    const rb = await a.request({ method, url: `/api/v1${url}`, token, json });
    expect(rb.status).toBe(ra.status);
    expect(normalize(rb.body, known)).toEqual(normalize(ra.body, known));
    if (ra.headers.Allow) expect(rb.headers.Allow).toBe(ra.headers.Allow);
  });

  it('a cursor from /v1 works on /api/v1', async () => {
    const first = await a.request({ url: `/v1/workspaces/${demo.ws1}/lists?limit=2`, token: demo.owner });
    const viaV1 = await a.request({
      url: `/v1/workspaces/${demo.ws1}/lists?limit=2&cursor=${first.json.meta.next_cursor}`,
      token: demo.owner,
    });
    const viaAlias = await a.request({
      url: `/api/v1/workspaces/${demo.ws1}/lists?limit=2&cursor=${first.json.meta.next_cursor}`,
      token: demo.owner,
    });
    expect(viaAlias.status).toBe(200);
    expect(viaAlias.json.data).toEqual(viaV1.json.data);
  });
});
