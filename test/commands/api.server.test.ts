import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeIO } from '../support/cli.js';
import { demo } from '../support/server.js';
import { httpStub, problem } from '../client/stubs.js';
import { clientHarness, type ClientHarness } from './harness.js';

let h: ClientHarness;
let env: Record<string, string>;
beforeEach(async () => {
  h = await clientHarness();
  env = { WCM_BASE_URL: h.base, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 };
});
afterEach(async () => {
  await h.close();
});

describe('wcm api', () => {
  it.each([['/me'], ['me'], ['/v1/me']])('GET %s prints the whole JSON response', async (p) => {
    const r = await h.run(['api', p], { env });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.data.user.id).toBe('usr_ada');
    expect(body.meta.request_id).toMatch(/^req_/);
  });

  it('GET with -f fields puts them in the query; {workspace} is the target workspace', async () => {
    const r = await h.run(['api', '-X', 'GET', '/workspaces/{workspace}/lists', '-f', 'limit=2'], { env });
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.data).toHaveLength(2);
    expect(typeof body.meta.next_cursor).toBe('string');
  });

  it("--paginate merges every page's data into one array (same as lists ls --all --json)", async () => {
    const all = JSON.parse((await h.run(['lists', 'ls', '--all', '--json'], { env })).stdout);
    const r = await h.run(['api', `/workspaces/${demo.ws1}/lists`, '--paginate', '-f', 'limit=3'], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(all);
  });

  it('-f fields without -X: a POST with a typed JSON body', async () => {
    const r = await h.run(
      [
        'api',
        '/workspaces/{workspace}/lists',
        '-f',
        'title=From api',
        '-f',
        'template_slug=faq',
        '-f',
        'items[][title]=Q1',
        '-f',
        'items[][description]=A1',
        '-f',
        'items[][title]=Q2',
      ],
      { env },
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data).toMatchObject({
      title: 'From api',
      template_slug: 'faq',
      items: [{ title: 'Q1', description: 'A1' }, { title: 'Q2' }],
    });
  });

  it('--input sends a file as the body', async () => {
    const file = path.join(h.configDir, 'body.json');
    writeFileSync(file, JSON.stringify({ title: 'From file', template_slug: 'links' }));
    const r = await h.run(['api', '-X', 'POST', '/workspaces/{workspace}/lists', '--input', file], { env });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data).toMatchObject({ title: 'From file', template_slug: 'links' });
  });

  it('--input - reads the body from standard input, sent as is (the server judges it)', async () => {
    // Valid JSON the contract refuses: the server's 422 (a body that is not JSON is exit 2, unsent:
    // test/e2e/exit-codes.test.ts).
    const r = await h.run(['api', '-X', 'POST', '/workspaces/{workspace}/lists', '--input', '-'], {
      env,
      io: fakeIO({ stdin: '{"title": 7}' }),
    });
    expect(r.code).toBe(3);
    expect(JSON.parse(r.stderr)).toMatchObject({ status: 422 });
  });

  it.each([
    [['/nope'], 5, 'route_not_found'],
    [['-X', 'POST', '/workspaces/{workspace}/lists', '-f', 'title=T'], 3, 'validation_failed'],
    [[`/workspaces/${demo.ws3}/lists`], 4, 'not_a_member'],
  ])('non-2xx %j: the problem object on stderr, exit %i', async (args, code, problemCode) => {
    const r = await h.run(['api', ...args], { env });
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    const p = JSON.parse(r.stderr);
    expect(p.code).toBe(problemCode);
    expect(p.request_id).toMatch(/^req_/);
  });

  it('a public POST gets a generated Idempotency-Key, the same on the retry, and no Authorization header', async () => {
    const stub = await httpStub((_r, n) =>
      n === 1
        ? { status: 503, headers: { 'retry-after': '0' }, body: problem(503, 'unavailable') }
        : { status: 201, body: { data: { id: 'evt' }, meta: { request_id: 'r' } } },
    );
    try {
      const r = await h.run(
        ['api', '-X', 'POST', `/public/agents/${demo.agent1}/analytics-events/opened`, '-f', `button=${demo.ws1}`],
        { env: { ...env, WCM_BASE_URL: stub.base } },
      );
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).data).toEqual({ id: 'evt' });
      const keys = stub.requests.map((q) => q.headers['idempotency-key']);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
      expect(stub.requests[0].headers.authorization).toBeUndefined();
      expect(JSON.parse(stub.requests[0].body)).toEqual({ button: demo.ws1 });
    } finally {
      await stub.close();
    }
  });

  it('-H Idempotency-Key is sent as given; a workspace POST gets none', async () => {
    const stub = await httpStub(() => ({ status: 201, body: { data: {}, meta: { request_id: 'r' } } }));
    try {
      await h.run(
        [
          'api',
          '-X',
          'POST',
          `/public/agents/${demo.agent1}/analytics-events/opened`,
          '-H',
          'Idempotency-Key: my-key-0001',
        ],
        { env: { ...env, WCM_BASE_URL: stub.base } },
      );
      await h.run(['api', '-X', 'POST', '/workspaces/{workspace}/lists', '-f', 'title=T'], {
        env: { ...env, WCM_BASE_URL: stub.base },
      });
      expect(stub.requests.map((q) => q.headers['idempotency-key'])).toEqual(['my-key-0001', undefined]);
      expect(stub.requests[1].headers.authorization).toBe(`Bearer ${demo.owner}`);
    } finally {
      await stub.close();
    }
  });

  it('-f sends strings as written, -F types them (numbers, booleans, null, a quoted "…", @file, @-), as gh api does', async () => {
    const stub = await httpStub(() => ({ status: 201, body: { data: {}, meta: { request_id: 'r' } } }));
    try {
      const file = path.join(h.configDir, 'bio.txt');
      writeFileSync(file, 'Open 8 to 6\n');
      const args = [
        'api',
        '-X',
        'PATCH',
        '/workspaces/{workspace}/pages/p',
        '-f',
        'title=2026',
        '-f',
        'quoted="x"',
        '-F',
        'n=2026',
        '-F',
        'on=false',
        '-F',
        'none=null',
        '-F',
        's="2026"',
        '-F',
        `bio=@${file}`,
        '-F',
        'note=@-',
      ];
      const r = await h.run(args, { env: { ...env, WCM_BASE_URL: stub.base }, io: fakeIO({ stdin: 'from stdin' }) });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(stub.requests[0].body)).toEqual({
        title: '2026',
        quoted: '"x"',
        n: 2026,
        on: false,
        none: null,
        s: '2026',
        bio: 'Open 8 to 6\n',
        note: 'from stdin',
      });
    } finally {
      await stub.close();
    }
  });

  it('-i prints the status line and headers, then the body; on an error too', async () => {
    const ok = await h.run(['api', '-i', '/me'], { env });
    expect(ok.code).toBe(0);
    const [head, body] = ok.stdout.split('\n\n');
    expect(head.split('\n')[0]).toBe('HTTP/1.1 200 OK');
    expect(head).toMatch(/^Content-Type: application\/json/m);
    expect(head).toMatch(/^X-Request-Id: req_/m);
    expect(JSON.parse(body).data.user.id).toBe('usr_ada');
    const missing = await h.run(['api', '-i', '/nope'], { env });
    expect(missing.code).toBe(5);
    expect(missing.stdout.split('\n')[0]).toBe('HTTP/1.1 404 Not Found');
    expect(JSON.parse(missing.stderr).code).toBe('route_not_found');
  });

  it('--jq filters the response (strings raw)', async () => {
    const r = await h.run(['api', '/me', '--jq', '.data.user.id'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('usr_ada\n');
  });

  it.each([
    [['-X', 'FETCH', '/me'], 'is not an HTTP method'],
    [['-X', 'POST', '/me', '--paginate'], '`--paginate` works with GET only'],
    [['/me', '-f', 'novalue'], '`-f novalue` must look like key=value'],
    [['/me', '-F', 'novalue'], '`-F novalue` must look like key=value'],
    [['/me', '-i', '--paginate'], '`-i` and `--paginate` cannot be used together'],
    [['/me', '-i', '--jq', '.'], '`-i` and `--jq` cannot be used together'],
    [['-X', 'POST', '/me', '-F', 'a=@-', '--input', '-'], 'both read standard input'],
    [['http://elsewhere.test/v1/me'], 'is not under the base URL'],
  ])('usage errors %j: exit 2', async (args, message) => {
    const r = await h.run(['api', ...args], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });
});

describe('wcm openapi', () => {
  it('prints the OpenAPI 3.1 document, locally and from the server', async () => {
    const local = await h.run(['openapi']);
    expect(local.code).toBe(0);
    const doc = JSON.parse(local.stdout);
    expect(doc.openapi).toMatch(/^3\.1/);
    expect(Object.keys(doc.paths)).toContain('/workspaces/{workspace}/lists');
    const remote = await h.run(['openapi', '--remote'], { env: { WCM_BASE_URL: h.base } });
    expect(remote.code).toBe(0);
    expect(JSON.parse(remote.stdout).openapi).toBe(doc.openapi);
  });
});
