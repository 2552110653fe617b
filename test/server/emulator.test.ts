// The control plane (docs/server.md#controlling-a-running-server-reset-snapshots-faults-clock-request-log) over a real socket: admin token, request log, reset and
// snapshots, the movable clock, injected faults; and the `wcm local …` / `wcm logs` commands.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeIO, runInProcess } from '../support/cli.js';
import { DEMO, demo, onPort, tempDir } from '../support/server.js';

/** How many threads fixtures/demo.json seeds (counted, so a demo record added keeps the checks true). */
const DEMO_THREADS = (JSON.parse(readFileSync(DEMO, 'utf8')) as { threads: unknown[] }).threads.length;

let server: Awaited<ReturnType<typeof onPort>>;
let origin: string;
let admin: string;
let cfg: ReturnType<typeof tempDir>;
beforeAll(async () => {
  server = await onPort();
  origin = new URL(server.url).origin;
  admin = server.adminToken!;
  cfg = tempDir('wcm-emu-');
});
afterAll(async () => {
  await server.close();
  cfg.cleanup();
});

const control = async (method: string, p: string, body?: unknown, token = admin) => {
  const res = await fetch(`${origin}/_emulator${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
};
const api = (p: string, init: RequestInit = {}) =>
  fetch(`${server.url}${p}`, {
    ...init,
    headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json', ...(init.headers ?? {}) },
  });
/** How many records of `c` the server's store holds now (read through the store's interface, on either engine). */
const count = (c: 'threads' | 'listings') => server.db.read((tx) => tx.count(c));
const cli = (args: string[]) =>
  runInProcess(args, {
    env: {
      WCM_CONFIG_DIR: cfg.dir,
      WCM_BASE_URL: server.url,
      WCM_TOKEN: demo.owner,
      WCM_WORKSPACE: demo.ws1,
      WCM_ADMIN_TOKEN: admin,
    },
  });

beforeEach(async () => {
  await control('DELETE', '/faults');
  await control('DELETE', '/clock');
});

describe('the admin token', () => {
  it('is required: none, a wrong one, or an API token is 401 and changes nothing', async () => {
    expect(admin).toMatch(/^wcm_admin_/);
    for (const token of ['', 'wrong', demo.owner]) {
      const r = await control('POST', '/reset', { to: 'empty' }, token);
      expect(r.status).toBe(401);
    }
    expect(await count('threads')).toBeGreaterThan(0);
  });

  it('is not in the OpenAPI document, and the control plane is not under /v1', async () => {
    const doc = await (await fetch(`${server.url}/openapi.json`)).text();
    expect(doc).not.toContain('_emulator');
    expect((await api('/_emulator/requests')).status).toBe(404);
  });
});

describe('the request log', () => {
  it('records each request with operation, status, duration, request id and problem; filters by status and operation', async () => {
    const ok = await api(`/workspaces/${demo.ws1}/threads?limit=1`);
    const missing = await api(`/workspaces/${demo.ws1}/forms/00000000-0000-4000-8000-000000000000`);
    const all = (await control('GET', '/requests?limit=10')).json.data;
    const last = all.slice(-2);
    expect(last[0]).toMatchObject({
      method: 'GET',
      operation: 'listThreads',
      status: 200,
      request_id: ok.headers.get('x-request-id'),
      problem: null,
    });
    expect(last[1]).toMatchObject({
      operation: 'getForm',
      status: 404,
      problem: 'form_not_found',
      request_id: missing.headers.get('x-request-id'),
    });
    expect(typeof last[0].duration_ms).toBe('number');
    const only404 = (await control('GET', '/requests?status=4xx')).json.data;
    expect(only404.every((e: { status: number }) => e.status >= 400 && e.status < 500)).toBe(true);
    const byOp = (await control('GET', '/requests?operation=listThreads')).json.data;
    expect(byOp.every((e: { operation: string }) => e.operation === 'listThreads')).toBe(true);
    // Reading the log is not logged, and no token is in it.
    const everything = (await control('GET', '/requests?limit=10000')).json.data;
    expect(everything.filter((e: { path: string }) => e.path.startsWith('/_emulator'))).toEqual([]);
    const text = JSON.stringify(everything);
    expect(text).not.toContain(demo.owner);
    expect(text).not.toContain(admin);
  });

  it.each([['limit=0'], ['limit=x'], ['status=6xx'], ['operation=nope'], ['since=-1']])(
    '?%s is a 422 naming the parameter',
    async (q) => {
      const r = await control('GET', `/requests?${q}`);
      expect(r.status).toBe(422);
      expect(Object.keys(r.json.errors)).toEqual([q.split('=')[0]]);
    },
  );

  it('streams new requests as Server-Sent Events', async () => {
    const res = await fetch(`${origin}/_emulator/requests/stream?operation=getMe`, {
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = res.body!.getReader();
    await api('/me');
    let text = '';
    while (!/"operation":"getMe"/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(text).toMatch(/event: request\ndata: \{.*"status":200/);
  });
});

describe("the server's own traffic (issue 37 item 13)", () => {
  it('/favicon.ico is an icon, not a 404; the dashboard, /healthz and the favicon stay out of the log views unless ?all', async () => {
    const icon = await fetch(`${origin}/favicon.ico`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(await icon.text()).toMatch(/^<svg /);
    await fetch(`${origin}/healthz`);
    await fetch(`${origin}/dashboard`, { redirect: 'manual' });
    await fetch(`${origin}/dashboard/nope`, { redirect: 'manual' });
    const missing = await api(`/workspaces/${demo.ws1}/forms/00000000-0000-4000-8000-0000000000aa`);
    const paths = (q: string) =>
      control('GET', `/requests?limit=10000${q}`).then((r) =>
        (r.json.data as Array<{ path: string }>).map((e) => e.path),
      );
    const own = (p: string) => p === '/healthz' || p === '/favicon.ico' || p.startsWith('/dashboard');
    const shown = await paths('');
    expect(shown.filter(own)).toEqual([]);
    expect(shown).toContain(`/v1/workspaces/${demo.ws1}/forms/00000000-0000-4000-8000-0000000000aa`);
    const fourxx = (await control('GET', '/requests?status=4xx&limit=10000')).json.data as Array<{
      path: string;
      request_id: string;
    }>;
    expect(fourxx.filter((e) => own(e.path))).toEqual([]);
    expect(fourxx.at(-1)!.request_id).toBe(missing.headers.get('x-request-id'));
    const everything = await paths('&all=true');
    expect(everything).toEqual(expect.arrayContaining(['/favicon.ico', '/healthz', '/dashboard']));
    expect((await control('GET', '/requests?all=maybe')).json.errors).toEqual({ all: ['Must be true or false.'] });
  });

  it('wcm logs leaves them out, --all shows them; a terminal table has a PATH column', async () => {
    await fetch(`${origin}/healthz`);
    await api(`/workspaces/${demo.ws1}/forms/00000000-0000-4000-8000-0000000000ab`);
    const lines = async (args: string[]) =>
      (await cli(args)).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { path: string });
    const plain = await lines(['logs', '--limit', '10000']);
    expect(plain.some((e) => e.path === '/healthz')).toBe(false);
    expect((await lines(['logs', '--all', '--limit', '10000'])).some((e) => e.path === '/healthz')).toBe(true);
    // Wide enough for the whole path: at narrower widths the path gives way (test/e2e/table-width.test.ts).
    const io = Object.assign(fakeIO({ tty: true }), { columns: 200 });
    const table = await runInProcess(['logs', '--status', '4xx', '--limit', '3'], {
      io,
      env: { WCM_CONFIG_DIR: cfg.dir, WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner, WCM_ADMIN_TOKEN: admin },
    });
    expect(table.code, table.stderr).toBe(0);
    const [head, ...rows] = table.stdout.trim().split('\n');
    expect(head).toMatch(/OPERATION +PATH +MS/);
    const last = rows.at(-1)!;
    expect(last).toMatch(
      new RegExp(
        `getForm +/v1/workspaces/${demo.ws1}/forms/00000000-0000-4000-8000-0000000000ab +[\\d.]+ +form_not_found`,
      ),
    );
  });
});

describe('faults', () => {
  it('an operation fails as told (with Retry-After), others and the control plane do not; clear removes it', async () => {
    const set = await control('PUT', '/faults', [{ operation: 'listThreads', status: 503, probability: 1 }]);
    expect(set.status).toBe(200);
    const failed = await api(`/workspaces/${demo.ws1}/threads`);
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('1');
    expect((await failed.json()).code).toBe('service_unavailable');
    expect((await api(`/workspaces/${demo.ws1}/lists`)).status).toBe(200);
    expect((await control('GET', '/faults')).status).toBe(200);
    await control('DELETE', '/faults');
    expect((await api(`/workspaces/${demo.ws1}/threads`)).status).toBe(200);
  });

  it('reset: true drops the connection', async () => {
    await control('PUT', '/faults', [{ operation: 'getMe', reset: true }]);
    await expect(api('/me')).rejects.toThrow();
  });

  it.each([
    [{ operation: 'nope', status: 503 }, '0.operation'],
    [{ operation: 'getMe', status: 503, probability: 1.5 }, '0.probability'],
    [{ operation: 'getMe', status: 404 }, '0.status'],
    [{ operation: 'getMe' }, '0.status'],
    [{ operation: 'getMe', status: 503, extra: 1 }, '0.extra'],
  ])('%j is a 422 naming %s; the rules in force stay', async (rule, field) => {
    await control('PUT', '/faults', [{ operation: 'getForm', status: 500 }]);
    const r = await control('PUT', '/faults', [rule]);
    expect(r.status).toBe(422);
    expect(Object.keys(r.json.errors)).toContain(field);
    expect((await control('GET', '/faults')).json.data).toEqual([
      { operation: 'getForm', status: 500, probability: 1 },
    ]);
  });
});

describe('the clock', () => {
  it('moves every timestamp the server writes, and comes back', async () => {
    const moved = await control('PUT', '/clock', { now: '2030-01-01T00:00:00Z' });
    expect(moved.json.data.now.startsWith('2030-01-01T00:00')).toBe(true);
    const created = await (
      await api(`/workspaces/${demo.ws1}/lists`, {
        method: 'POST',
        body: JSON.stringify({ title: 'In 2030', template_slug: 'faq' }),
      })
    ).json();
    expect(created.data.created_at.startsWith('2030-01-01T00:00')).toBe(true);
    await control('DELETE', '/clock');
    const now = await (
      await api(`/workspaces/${demo.ws1}/lists`, {
        method: 'POST',
        body: JSON.stringify({ title: 'Now', template_slug: 'faq' }),
      })
    ).json();
    expect(Math.abs(Date.parse(now.data.created_at) - Date.now())).toBeLessThan(60_000);
  });

  it.each([
    [{ now: '1969-12-31T23:59:59Z' }],
    [{ now: 'yesterday' }],
    [{ offset_seconds: 'x' }],
    [{}],
    [{ now: '2030-01-01T00:00:00Z', offset_seconds: 1 }],
  ])('%j is refused (422) and the clock stays', async (body) => {
    const r = await control('PUT', '/clock', body);
    expect(r.status).toBe(422);
    expect((await control('GET', '/clock')).json.data.offset_seconds).toBe(0);
  });

  // docs/security.md#control-plane-logs-and-files: an offset of 1e300 used to be taken, and every write then failed with a 500.
  it.each([
    [{ offset_seconds: 1e300 }, 'offset_seconds'],
    [{ offset_seconds: -1e300 }, 'offset_seconds'],
    [{ offset_seconds: 11 * 365 * 86_400 }, 'offset_seconds'],
    [{ now: '2099-01-01T00:00:00Z' }, 'now'],
  ])('%j is beyond ±10 years: 422 naming %s, the clock stays and writes still work', async (body, field) => {
    const r = await control('PUT', '/clock', body);
    expect(r.status).toBe(422);
    expect(Object.keys(r.json.errors)).toEqual([field]);
    expect(r.json.errors[field][0]).toMatch(/10 years/);
    expect((await control('GET', '/clock')).json.data.offset_seconds).toBe(0);
    const write = await api(`/workspaces/${demo.ws1}/lists`, {
      method: 'POST',
      body: JSON.stringify({ title: 'After a refused clock', template_slug: 'faq' }),
    });
    expect(write.status).toBe(201);
  });

  it('accepts an offset just inside ten years', async () => {
    const r = await control('PUT', '/clock', { offset_seconds: 9 * 365 * 86_400 });
    expect(r.status).toBe(200);
    expect(r.json.data.offset_seconds).toBe(9 * 365 * 86_400);
  });
});

describe('reset and snapshots', () => {
  it('snapshot, change, restore: the state is back; reset to empty and to seed', async () => {
    expect((await control('POST', '/snapshots', { name: 'base' })).status).toBe(201);
    const before = await count('listings');
    await api(`/workspaces/${demo.ws1}/lists`, {
      method: 'POST',
      body: JSON.stringify({ title: 'After the snapshot', template_slug: 'faq' }),
    });
    expect(await count('listings')).toBe(before + 1);
    const restored = await control('POST', '/reset', { to: 'base' });
    expect(restored.status).toBe(200);
    expect(await count('listings')).toBe(before);
    expect((await control('GET', '/snapshots')).json.data.map((s: { name: string }) => s.name)).toContain('base');

    const empty = await control('POST', '/reset', { to: 'empty' });
    expect(empty.json.data.records).toEqual({});
    expect(await count('threads')).toBe(0);
    expect((await api('/me')).status).toBe(401); // the tokens went too
    const seeded = await control('POST', '/reset', { to: 'seed' });
    expect(seeded.json.data.records.threads).toBe(DEMO_THREADS);
    expect((await api('/me')).status).toBe(200);
    // The admin token and the webhook secret (settings) survive every reset.
    expect((await control('GET', '/clock')).status).toBe(200);
  });

  it.each([
    [{ to: 'nope' }, 404],
    [{ to: '../etc' }, 422],
    [{ to: 5 }, 422],
    [[], 422],
  ])('%j is refused (%i) and changes nothing', async (body, status) => {
    const before = await count('threads');
    const r = await control('POST', '/reset', body);
    expect(r.status).toBe(status);
    expect(await count('threads')).toBe(before);
  });

  it('a malformed body is invalid_json', async () => {
    const res = await fetch(`${origin}/_emulator/reset`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: '{',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe('invalid_json');
  });
});

describe('the commands', () => {
  it('wcm local snapshot save|ls|restore|rm, wcm local reset --to seed, wcm local clock set|clear', async () => {
    expect((await cli(['local', 'snapshot', 'save', 'cli-snap'])).code).toBe(0);
    const ls = await cli(['local', 'snapshot', 'ls']);
    expect(ls.stdout).toContain('cli-snap');
    expect((await cli(['local', 'snapshot', 'restore', 'cli-snap'])).code).toBe(0);
    expect((await cli(['local', 'snapshot', 'rm', 'cli-snap'])).code).toBe(0);
    const gone = await cli(['local', 'snapshot', 'restore', 'cli-snap']);
    expect(gone.code).toBe(5);
    const reset = await cli(['local', 'reset', '--to', 'seed', '--json']);
    expect(JSON.parse(reset.stdout).records.threads).toBe(DEMO_THREADS);
    const clock = await cli(['local', 'clock', 'set', '--offset', '3600', '--json']);
    expect(JSON.parse(clock.stdout).offset_seconds).toBe(3600);
    expect((await cli(['local', 'clock', 'clear'])).code).toBe(0);
    expect((await cli(['local', 'clock', 'set'])).code).toBe(2);
  });

  it('wcm logs prints JSON lines piped, filtered; without an admin token it is exit 4', async () => {
    await api(`/workspaces/${demo.ws1}/forms/00000000-0000-4000-8000-000000000000`);
    const r = await cli(['logs', '--status', '4xx', '--limit', '5']);
    expect(r.code, r.stderr).toBe(0);
    const entries = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.every((e: { status: number }) => e.status >= 400)).toBe(true);
    expect((await cli(['logs', '--status', 'bad'])).code).toBe(2);
    const none = await runInProcess(['logs'], {
      env: { WCM_CONFIG_DIR: path.join(cfg.dir, 'x'), WCM_BASE_URL: server.url, WCM_TOKEN: demo.owner },
    });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain('admin token');
  });

  it('wcm local faults add keeps the rules in force, ls lists them in order; wcm local clock shows the clock', async () => {
    expect((await cli(['local', 'faults', 'ls'])).stderr).toContain('No faults');
    expect((await cli(['local', 'faults', 'set', '--operation', 'getMe', '--status', '503'])).code).toBe(0);
    const add = await cli(['local', 'faults', 'add', '--operation', '*', '--latency', '5']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain('2 rules in force');
    expect((await control('GET', '/faults')).json.data).toEqual([
      { operation: 'getMe', probability: 1, status: 503 },
      { operation: '*', probability: 1, latency_ms: 5 },
    ]);
    const ls = await cli(['local', 'faults', 'ls']);
    expect(ls.stdout).toBe('getMe\t503\t1\t-\n*\t-\t1\t5 ms\n');
    expect((await cli(['local', 'faults', 'add', '--status', '503'])).code).toBe(2);
    // A status the rules do not take is refused by the CLI, naming the flag (exit 2), before the server's 422.
    expect((await cli(['local', 'faults', 'add', '--operation', 'getMe', '--status', '404'])).code).toBe(2);
    expect((await control('GET', '/faults')).json.data).toHaveLength(2);

    await cli(['local', 'clock', 'set', '--offset', '7200']);
    const shown = await cli(['local', 'clock', '--json']);
    expect(shown.code, shown.stderr).toBe(0);
    const clock = JSON.parse(shown.stdout) as { now: string; offset_seconds: number };
    expect(clock.offset_seconds).toBe(7200);
    expect(Math.abs(Date.parse(clock.now) - Date.now() - 7_200_000)).toBeLessThan(60_000);
    const text = await cli(['local', 'clock']);
    expect(text.stdout).toBe(`now\t${text.stdout.split('\n')[0].split('\t')[1]}\noffset\t7200 s\n`);
  });

  it('wcm local faults set|clear', async () => {
    expect((await cli(['local', 'faults', 'set', '--operation', 'getMe', '--status', '429'])).code).toBe(0);
    expect((await api('/me')).status).toBe(429);
    expect((await cli(['local', 'faults', 'clear'])).code).toBe(0);
    expect((await api('/me')).status).toBe(200);
    const bad = await cli(['local', 'faults', 'set', '--operation', 'getMe', '--probability', '2', '--status', '503']);
    expect(bad.code).toBe(2);
  });
});
