// `wcm api` and `wcm openapi` through the run(options, factory) seam: the method, path, query, body and
// headers each flag combination makes, and the combinations refused before any request. Against the
// real server: api.server.test.ts.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import api from '../../commands/api.js';
import openapi from '../../commands/openapi.js';
import { UsageError } from '../../src/cli/errors.js';
import { fakeIO } from '../support/cli.js';
import { problem } from '../client/stubs.js';
import { SEAM_WS, record, seamHarness, type SeamHarness } from './harness.js';

const AGENT = '5b5e1ef7-5bd6-4b8c-8a44-1c8a0e1e7d01';

let h: SeamHarness;
afterEach(() => h.close());
const ok = () => record({ ok: true });
const headers = (n = 0) => h.stub.requests[n].headers;
const refused = (opts: object, globals = {}) => h.refused(api, opts, UsageError, globals);

describe('wcm api (run seam)', () => {
  it('PATH alone: a GET with the token, /v1 dropped and {workspace} filled in; the whole response printed', async () => {
    h = await seamHarness(ok);
    expect(await h.run(api, { args: ['/v1/workspaces/{workspace}/lists'] })).toBe(0);
    expect(h.request()).toEqual({ method: 'GET', path: `/workspaces/${SEAM_WS}/lists`, query: {} });
    expect(headers().authorization).toBe('Bearer wcm_pat_stub');
    expect(JSON.parse(h.io.out())).toEqual({ data: { ok: true }, meta: { request_id: 'req_stub' } });
  });

  it('an absolute URL under the base URL is its path; -f fields of a GET are the query, as written', async () => {
    h = await seamHarness(ok);
    await h.run(api, { args: [`${h.stub.base}/me/oauth-grants`], method: 'get', rawField: ['limit=5', 'q=a b'] });
    expect(h.request()).toEqual({ method: 'GET', path: '/me/oauth-grants', query: { limit: '5', q: 'a b' } });
    expect(h.body()).toBeUndefined();
  });

  it('fields without -X: a POST whose JSON body has -f strings first, then -F typed values, nested', async () => {
    h = await seamHarness(ok);
    await h.run(api, {
      args: ['/workspaces/{workspace}/lists'],
      rawField: ['title=2026', 'n=1', 'items[][title]=Hours?'],
      field: ['m=1', 'ok=true', 'none=null', 'items[][description]="8 to 6"'],
    });
    expect(h.request()).toEqual({ method: 'POST', path: `/workspaces/${SEAM_WS}/lists`, query: {} });
    expect(h.body()).toEqual({
      title: '2026',
      n: '1',
      items: [{ title: 'Hours?', description: '8 to 6' }],
      m: 1,
      ok: true,
      none: null,
    });
  });

  it('--input FILE: the file is the body, sent as is, and the fields go to the query', async () => {
    h = await seamHarness(ok);
    writeFileSync(path.join(h.cwd, 'body.json'), '{"title":   "raw"}');
    await h.run(api, { args: ['/workspaces/{workspace}/lists'], input: 'body.json', rawField: ['dry=1'] });
    expect(h.request()).toEqual({ method: 'POST', path: `/workspaces/${SEAM_WS}/lists`, query: { dry: '1' } });
    expect(h.stub.requests[0].body).toBe('{"title":   "raw"}');
  });

  it('a POST under /public: no token, and an Idempotency-Key, generated or the one -H gives', async () => {
    h = await seamHarness(ok);
    const p = `/public/agents/${AGENT}/analytics-events/opened`;
    await h.run(api, { args: [p], method: 'POST' });
    await h.run(api, { args: [p], method: 'POST', header: ['Idempotency-Key: key-12345678', 'X-Trace: t1'] });
    await h.run(api, { args: ['/workspaces/{workspace}/lists'], rawField: ['title=x'] });
    expect(headers(0).authorization).toBeUndefined();
    expect(headers(0)['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers(1)['idempotency-key']).toBe('key-12345678');
    expect(headers(1)['x-trace']).toBe('t1');
    expect(headers(2)['idempotency-key']).toBeUndefined();
    expect(headers(2).authorization).toBe('Bearer wcm_pat_stub');
  });

  it("--paginate follows meta.next_cursor from -f cursor and prints every page's data as one array", async () => {
    h = await seamHarness((req) => {
      const cursor = new URL(req.url, 'http://x').searchParams.get('cursor');
      const next = { c1: 'c2', c2: 'c3' }[cursor ?? ''] ?? null;
      return { status: 200, body: { data: [cursor], meta: { request_id: 'r', next_cursor: next } } };
    });
    await h.run(api, { args: ['/workspaces/{workspace}/lists'], paginate: true, rawField: ['cursor=c1', 'limit=1'] });
    expect(h.stub.requests.map((_, i) => h.request(i).query)).toEqual([
      { cursor: 'c1', limit: '1' },
      { cursor: 'c2', limit: '1' },
      { cursor: 'c3', limit: '1' },
    ]);
    expect(JSON.parse(h.io.out())).toEqual(['c1', 'c2', 'c3']);
  });

  it('a non-2xx answer: the problem on stderr, the exit code of its status; -i prints the head first', async () => {
    h = await seamHarness(() => ({ status: 404, body: problem(404, 'listing_not_found') }));
    expect(await h.run(api, { args: ['/workspaces/{workspace}/lists/x'], include: true })).toBe(5);
    expect(h.io.out()).toMatch(/^HTTP\/1\.1 404 Not Found\nContent-Type: application\/json\n/);
    expect(JSON.parse(h.io.err())).toMatchObject({ status: 404, code: 'listing_not_found' });
  });

  it.each<[string, object, object, string]>([
    ['-X that is no method', { method: 'FETCH' }, {}, '`-X FETCH` is not an HTTP method.'],
    ['--paginate with POST', { method: 'POST', paginate: true }, {}, '`--paginate` works with GET only.'],
    [
      '-i with --paginate',
      { include: true, paginate: true },
      {},
      '`-i` and `--paginate` cannot be used together: the pages are printed as one JSON array.',
    ],
    [
      '-i with --jq',
      { include: true },
      { json: true, jq: '.data' },
      '`-i` and `--jq` cannot be used together: jq reads JSON, and the headers are not.',
    ],
    [
      '-F …=@- with --input -',
      { field: ['bio=@-'], input: '-' },
      {},
      '`-F …=@-` and `--input -` both read standard input.',
    ],
    ['a field without =', { rawField: ['title'] }, {}, '`-f title` must look like key=value.'],
    ['a header without :', { header: ['Accept'] }, {}, '`-H Accept` must look like "Name: value".'],
  ])('%s: a usage error before any request', async (_name, opts, globals, message) => {
    h = await seamHarness(ok);
    expect(await refused({ args: ['/me'], ...opts }, globals)).toBe(message);
  });

  it('an absolute URL outside the base URL is refused; the token is never sent there', async () => {
    h = await seamHarness(ok);
    expect(await refused({ args: ['https://elsewhere.example/v1/me'] })).toBe(
      `\`https://elsewhere.example/v1/me\` is not under the base URL ${h.stub.base}.`,
    );
  });

  it('--input - reads standard input as the body', async () => {
    h = await seamHarness(ok, { io: fakeIO({ stdin: '["raw", "body"]' }) });
    await h.run(api, { args: ['/workspaces/{workspace}/lists'], input: '-' });
    expect(h.request().method).toBe('POST');
    expect(h.stub.requests[0].body).toBe('["raw", "body"]');
  });
});

describe('wcm openapi (run seam)', () => {
  it('without --remote: the OpenAPI 3.1 document built locally, no request', async () => {
    h = await seamHarness();
    expect(await h.run(openapi)).toBe(0);
    expect(JSON.parse(h.io.out())).toMatchObject({ openapi: expect.stringMatching(/^3\.1\./) });
    expect(h.stub.requests).toHaveLength(0);
  });

  it('--remote: GET /openapi.json of the target, without a token (none is needed), printed as served', async () => {
    h = await seamHarness(() => ({ status: 200, body: { openapi: '3.1.0', info: { title: 'served' } } }), {
      env: { WCM_TOKEN: undefined },
    });
    expect(await h.run(openapi, { remote: true })).toBe(0);
    expect(h.request()).toEqual({ method: 'GET', path: '/openapi.json', query: {} });
    expect(h.stub.requests[0].headers.authorization).toBeUndefined();
    expect(JSON.parse(h.io.out())).toEqual({ openapi: '3.1.0', info: { title: 'served' } });
  });
});
