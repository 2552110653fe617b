import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/json/store.js';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';
import { readSnapshotFile } from '../support/store.js';

let dir: string;
let cleanup: () => void;
const procs: Array<{ kill(sig?: NodeJS.Signals): boolean; exitCode?: number | null }> = [];
beforeEach(() => {
  ({ dir, cleanup } = tempDir('wcm-e2e-'));
});
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
  cleanup();
});

async function serve(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  const s = await spawnServe(args, {
    cwd: opts.cwd ?? dir,
    env: { WCM_CONFIG_DIR: path.join(dir, 'config'), ...opts.env },
  });
  procs.push(s.proc);
  return s;
}
const waitFor = async (cond: () => boolean, what: string, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
const get = (url: string, token?: string) => fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('wcm serve', () => {
  it('first run on an empty store: exact first line, --port 0, default data file, bootstrap token saved as profile `local`', async () => {
    const { url, lines, proc } = await serve(['--show-secrets']);
    // A script that waits for the first line can use the profile at once: it is saved before.
    const atFirstLine = JSON.parse(readFileSync(path.join(dir, 'config', 'config.json'), 'utf8'));
    expect(atFirstLine.profiles.local.base_url).toBe(url);
    expect(lines[0]).toMatch(/^wcm listening on http:\/\/127\.0\.0\.1:(\d+)\/v1$/);
    const port = Number(/:(\d+)\/v1$/.exec(lines[0])![1]);
    expect(port).toBeGreaterThan(0);
    expect(url).toBe(`http://127.0.0.1:${port}/v1`);
    // It says where the dashboard is, and that address answers (a sign-in redirect, not a 404).
    await waitFor(() => lines.some((l) => l.startsWith('dashboard: ')), 'the dashboard line');
    const dashboard = lines.find((l) => l.startsWith('dashboard: '))!.split(' ')[1];
    expect(dashboard).toBe(`http://127.0.0.1:${port}/dashboard`);
    const page = await fetch(dashboard, { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toMatch(/\/dashboard\/sign-in\?return_to=%2Fdashboard$/);
    await waitFor(
      () =>
        lines.some((l) => /^\s+wcm_pat_[A-Za-z0-9]{32,}$/.test(l)) && lines.some((l) => l.includes('profile `local`')),
      'the token line',
    );
    const token = lines.find((l) => /^\s+wcm_pat_/.test(l))!.trim();
    expect(existsSync(path.join(dir, '.wcm', 'store.json.lock'))).toBe(true);

    const me = await get(`${url}/me`, token);
    expect(me.status).toBe(200);
    const body = (await me.json()).data;
    expect(body.token.abilities).toHaveLength(7);
    expect(body.workspaces).toHaveLength(1);
    expect(body.workspaces[0].role).toBe('owner');

    const config = JSON.parse(readFileSync(path.join(dir, 'config', 'config.json'), 'utf8'));
    // Beside its token, profile `local` keeps the control plane's admin token (docs/server.md#controlling-a-running-server-reset-snapshots-faults-clock-request-log) and
    // the generated signing secret, which piped output does not print (docs/security.md#control-plane-logs-and-files).
    expect(config.profiles.local).toEqual({
      base_url: url,
      token,
      workspace: body.workspaces[0].id,
      admin_token: expect.stringMatching(/^wcm_admin_[A-Za-z0-9]+$/),
      webhook_secret: expect.stringMatching(/^whsec_/),
    });
    expect(statSync(path.join(dir, 'config', 'config.json')).mode & 0o777).toBe(0o600);

    // The token works for workspace operations too.
    const created = await fetch(`${url}/workspaces/${body.workspaces[0].id}/lists`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'First', template_slug: 'faq' }),
    });
    expect(created.status).toBe(201);

    proc.kill('SIGTERM');
    expect((await proc).exitCode).toBe(0);
    // Flushed on exit: the snapshot holds the listing, the lock is gone.
    expect(existsSync(path.join(dir, '.wcm', 'store.json.lock'))).toBe(false);
    const store = await Store.openReadOnly(path.join(dir, '.wcm', 'store.json'));
    expect([...store.values('listings')].map((l) => l.title)).toEqual(['First']);

    // A second start does not bootstrap again, and the token still works.
    const again = await serve([]);
    await new Promise((r) => setTimeout(r, 200));
    expect(again.lines.some((l) => /wcm_pat_/.test(l))).toBe(false);
    expect((await get(`${again.url}/me`, token)).status).toBe(200);
  });

  it('SIGTERM while a request is in flight: the request completes, exit 0, the write is on disk', async () => {
    const data = path.join(dir, 'data.json');
    const { url, proc } = await serve(['--data', data, '--seed', DEMO]);
    const { port } = new URL(url);
    const body = JSON.stringify({ title: 'In flight', template_slug: 'faq' });
    const sock = net.connect(Number(port), '127.0.0.1');
    let raw = '';
    sock.on('data', (d) => (raw += d.toString()));
    await new Promise((r) => sock.once('connect', r));
    // Headers and half the body now; the rest after the signal.
    sock.write(
      `POST /v1/workspaces/${demo.ws1}/lists HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${demo.owner}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 200));
    proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    sock.write(body.slice(10));
    await waitFor(() => /\r\n\r\n\{.*\}$/s.test(raw), 'the response');
    expect(raw).toMatch(/^HTTP\/1\.1 201 /);
    expect(raw).toMatch(/connection: close/i);
    sock.destroy();
    const result = await proc;
    expect(result.exitCode).toBe(0);
    const store = await Store.openReadOnly(data);
    expect([...store.values('listings')].some((l) => l.title === 'In flight')).toBe(true);
    // New connections are refused once it stopped.
    await expect(get(`${url}/me`, demo.owner)).rejects.toThrow();
  });

  it.each([['abc'], ['70000'], ['-1'], ['1.5']])(
    '--port %s is a usage error (exit 2) naming the flag',
    async (port) => {
      const r = await wcm(['serve', '--port', port, '--data', path.join(dir, 'x.json')], {
        cwd: dir,
        env: { WCM_CONFIG_DIR: path.join(dir, 'config') },
      });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('`--port`');
      expect(r.stdout).toBe('');
      expect(existsSync(path.join(dir, 'x.json.lock'))).toBe(false);
    },
  );

  it.each([
    [['--public-url', 'sandbox.example.com'], {}, '`--public-url`'],
    [['--public-url', 'https://sandbox.example.com/wcm'], {}, '`--public-url`'],
    [['--allowed-host', 'https://sandbox.example.com'], {}, '`--allowed-host`'],
    [['--allowed-origin', 'app.example.com'], {}, '`--allowed-origin`'],
    [[], { WCM_PUBLIC_URL: 'ftp://sandbox.example.com' }, '`WCM_PUBLIC_URL`'],
    [['--trust-proxy', 'proxy.example'], {}, '`--trust-proxy`'],
    [[], { WCM_TRUST_PROXY: '127.0.0.1,10.0.0.0/99' }, '`WCM_TRUST_PROXY`'],
  ])('%j %j is a usage error (exit 2) naming the flag, before the store is opened', async (args, env, flag) => {
    const r = await wcm(['serve', '--port', '0', '--data', path.join(dir, 'x.json'), ...args], {
      cwd: dir,
      env: { WCM_CONFIG_DIR: path.join(dir, 'config'), ...env },
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(flag);
    expect(r.stdout).toBe('');
    expect(existsSync(path.join(dir, 'x.json.lock'))).toBe(false);
  });

  it('--help shows the trust flags', async () => {
    const r = await wcm(['serve', '--help'], { cwd: dir, env: { WCM_CONFIG_DIR: path.join(dir, 'config') } });
    expect(r.exitCode).toBe(0);
    for (const flag of [
      '--public-url <url>',
      '--allowed-host <name>',
      '--allowed-origin <origin>',
      '--trust-proxy <address>',
    ])
      expect(r.stdout).toContain(flag);
    expect(r.stdout).toContain('WCM_PUBLIC_URL');
    expect(r.stdout).toContain('WCM_TRUST_PROXY');
  });

  it('WCM_TRUST_PROXY=127.0.0.1: the binary counts each X-Forwarded-For client on its own (--rate-limit 1)', async () => {
    const { url } = await serve(['--data', path.join(dir, 'proxy.json'), '--seed', DEMO, '--rate-limit', '1'], {
      env: { WCM_TRUST_PROXY: '127.0.0.1, ::1' },
    });
    let n = 0;
    const opened = (client: string) =>
      fetch(`${url}/public/agents/${demo.agent1}/analytics-events/opened`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'idempotency-key': `proxy-key-${++n}-0000`,
          'x-forwarded-for': client,
        },
        body: '{}',
      }).then((r) => r.status);
    expect([await opened('203.0.113.1'), await opened('203.0.113.2'), await opened('203.0.113.1')]).toEqual([
      201, 201, 429,
    ]);
  });

  it('WCM_PUBLIC_URL: the binary prints the public URL, and its OAuth issuer and dashboard line use it whatever the Host', async () => {
    const { url, lines } = await serve(['--data', path.join(dir, 'p.json'), '--seed', DEMO], {
      env: { WCM_PUBLIC_URL: 'https://sandbox.example.com' },
    });
    await waitFor(() => lines.some((l) => l.startsWith('dashboard: ')), 'the dashboard line');
    expect(lines).toContain('public URL: https://sandbox.example.com');
    expect(lines).toContain(
      'dashboard: https://sandbox.example.com/dashboard (read-only; `wcm open` opens it at a record)',
    );
    const meta = await (await get(`${new URL(url).origin}/.well-known/oauth-authorization-server`)).json();
    expect(meta.issuer).toBe('https://sandbox.example.com');
    expect(meta.token_endpoint).toBe('https://sandbox.example.com/oauth/token');
  });

  it('a second server on the same data file exits non-zero naming the file and pid; after kill -9 the stale lock does not block', async () => {
    const data = path.join(dir, 'shared.json');
    const first = await serve(['--data', data, '--seed', DEMO]);
    const pid = first.proc.pid!;
    const second = await wcm(['serve', '--port', '0', '--data', data], {
      cwd: dir,
      env: { WCM_CONFIG_DIR: path.join(dir, 'config') },
    });
    expect(second.exitCode).not.toBe(0);
    expect(second.stderr).toContain(data);
    expect(second.stderr).toContain(`pid ${pid}`);
    expect(second.stdout).not.toMatch(/listening/);
    // The first one is unaffected.
    expect((await get(`${first.url}/me`, demo.owner)).status).toBe(200);

    first.proc.kill('SIGKILL');
    await first.proc;
    expect(existsSync(`${data}.lock`)).toBe(true);
    const third = await serve(['--data', data]);
    expect((await get(`${third.url}/me`, demo.owner)).status).toBe(200);
    expect(JSON.parse(readFileSync(`${data}.lock`, 'utf8')).pid).toBe(third.proc.pid);
  });

  it('--seed on a non-empty store leaves it alone', async () => {
    const data = path.join(dir, 'seeded.json');
    const a = await serve(['--data', data, '--seed', DEMO]);
    const add = await fetch(`${a.url}/workspaces/${demo.ws1}/lists`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Kept', template_slug: 'faq' }),
    });
    expect(add.status).toBe(201);
    a.proc.kill('SIGTERM');
    expect((await a.proc).exitCode).toBe(0);
    const before = readSnapshotFile(data);

    const b = await serve(['--data', data, '--seed', DEMO]);
    await waitFor(() => b.lines.some((l) => l.includes('--seed was not applied')), 'the note');
    const list = await (await get(`${b.url}/workspaces/${demo.ws1}/lists?limit=100`, demo.owner)).json();
    expect(list.data.map((l: { title: string }) => l.title).filter((t: string) => t === 'Kept')).toHaveLength(1);
    expect(list.data).toHaveLength(6);
    b.proc.kill('SIGTERM');
    await b.proc;
    expect(readSnapshotFile(data).collections).toEqual(before.collections);
  });

  it('GET /v1/openapi.json of the running binary equals `wcm openapi`', async () => {
    const { url } = await serve(['--data', path.join(dir, 'o.json'), '--seed', DEMO]);
    const served = await (await get(`${url}/openapi.json`)).json();
    const printed = await wcm(['openapi']);
    expect(printed.exitCode).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(served);
  });
});

describe('the thread pool of wcm serve', () => {
  /** Threads of a freshly started `wcm serve`, with this environment on top of ours. */
  async function threads(args: string[], env: Record<string, string | undefined>): Promise<number> {
    const file = path.join(dir, `store-${procs.length}.json`);
    const s = await spawnServe(['--data', file, ...args], {
      cwd: dir,
      env: {
        WCM_CONFIG_DIR: path.join(dir, 'config'),
        UV_THREADPOOL_SIZE: undefined,
        STRIPE_SECRET_KEY: undefined,
        ...env,
      },
    });
    procs.push(s.proc);
    try {
      // Serving: the store was opened through the pool, so it exists, at its size.
      const res = await fetch(new URL('/healthz', s.url));
      expect(res.status).toBe(200);
      return readdirSync(`/proc/${s.proc.pid}/task`).length;
    } finally {
      s.proc.kill('SIGTERM');
      await s.proc;
    }
  }

  it('has one thread by default, the default four when Stripe is used, and whatever UV_THREADPOOL_SIZE says', async () => {
    const four = await threads([], { UV_THREADPOOL_SIZE: '4' });
    const byDefault = await threads([], {});
    expect(four - byDefault).toBe(3);
    expect(await threads([], { UV_THREADPOOL_SIZE: '2' })).toBe(byDefault + 1);
    // Stripe's DNS lookups run on the pool: a slow one must not hold the journal's writes up.
    expect(await threads([], { STRIPE_SECRET_KEY: 'sk_test_threads' })).toBe(four);
    expect(await threads(['--payments', 'stripe'], { STRIPE_SECRET_KEY: 'sk_test_threads' })).toBe(four);
    expect(await threads(['--payments=local'], { STRIPE_SECRET_KEY: 'sk_test_threads' })).toBe(byDefault);
  });
});
