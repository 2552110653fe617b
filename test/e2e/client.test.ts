import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadPort, httpStub, problem, type Stub } from '../client/stubs.js';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';

// One real `wcm serve` for the file; every test gets its own config directory.
let serve: Awaited<ReturnType<typeof spawnServe>>;
let base: string;
let dirs: Array<ReturnType<typeof tempDir>> = [];
const fresh = () => {
  const d = tempDir('wcm-e2e-');
  dirs.push(d);
  return d.dir;
};

beforeAll(async () => {
  const d = fresh();
  serve = await spawnServe(['--data', path.join(d, 'store.json'), '--seed', DEMO], {
    env: { WCM_CONFIG_DIR: path.join(d, 'serve-config') },
  });
  base = serve.url;
});
afterAll(async () => {
  serve?.proc.kill('SIGTERM');
  await serve?.proc;
  for (const d of dirs) d.cleanup();
  dirs = [];
});

const emptyPage = { status: 200, body: { data: [], meta: { request_id: 'req_stub', next_cursor: null } } };

describe('wcm against a real `wcm serve`', () => {
  it('login --with-token, then lists create, then lists ls --all --json: a round trip; config file mode 0600', async () => {
    const cfg = fresh();
    const env = { WCM_CONFIG_DIR: cfg };
    const login = await wcm(['auth', 'login', '--with-token', '--base-url', base, '--workspace', demo.ws1], {
      env,
      input: `${demo.owner}\n`,
    });
    expect(login.exitCode).toBe(0);
    expect(login.stdout).toContain('Logged in');
    expect(login.stdout + login.stderr).not.toContain(demo.owner);
    expect(statSync(path.join(cfg, 'config.json')).mode & 0o777).toBe(0o600);

    const created = await wcm(
      [
        'lists',
        'create',
        '--json',
        '--title',
        'E2E FAQ',
        '--template',
        'faq',
        '--item',
        'Hours?: 8 to 6',
        '--item',
        'Parking?',
      ],
      { env },
    );
    expect(created.exitCode).toBe(0);
    const listing = JSON.parse(created.stdout);
    expect(listing).toMatchObject({
      title: 'E2E FAQ',
      template_slug: 'faq',
      items: [{ title: 'Hours?', description: '8 to 6' }, { title: 'Parking?' }],
    });

    const ls = await wcm(['lists', 'ls', '--all', '--json'], { env });
    expect(ls.exitCode).toBe(0);
    const all = JSON.parse(ls.stdout);
    expect(Array.isArray(all)).toBe(true);
    expect(all[0]).toEqual({ id: listing.id, title: 'E2E FAQ', dashboard_url: listing.dashboard_url });
    expect(new Set(all.map((l: { id: string }) => l.id)).size).toBe(all.length);

    const piped = await wcm(['lists', 'ls', '--limit', '1'], { env });
    // execa drops the final newline.
    expect(piped.stdout).toBe(`${listing.id}\tE2E FAQ\t${listing.dashboard_url}`);

    const token = await wcm(['auth', 'token'], { env });
    expect(token.stdout).toBe(demo.owner);
  });

  it('--debug prints request and response lines, never the token (success, failure, profile or WCM_TOKEN)', async () => {
    const cfg = fresh();
    await wcm(['auth', 'login', '--with-token', '--base-url', base, '--workspace', demo.ws1], {
      env: { WCM_CONFIG_DIR: cfg },
      input: demo.owner,
    });
    const runs = await Promise.all([
      wcm(['--debug', 'lists', 'ls'], { env: { WCM_CONFIG_DIR: cfg } }),
      wcm(['--debug', 'auth', 'status'], { env: { WCM_CONFIG_DIR: cfg } }),
      wcm(['--debug', 'lists', 'create', '--title', 'T', '--template', 'nope'], { env: { WCM_CONFIG_DIR: cfg } }),
      wcm(['--debug', '--json', 'lists', 'ls'], { env: { WCM_CONFIG_DIR: cfg, WCM_TOKEN: demo.revoked } }),
    ]);
    expect(runs.map((r) => r.exitCode)).toEqual([0, 0, 3, 4]);
    for (const r of runs) {
      expect(r.stderr).toMatch(/\[debug\] > (GET|POST) http/);
      expect(r.stderr).toContain('[debug] > authorization: Bearer [REDACTED]');
      expect(r.stderr).toMatch(/\[debug\] < \d{3} /);
      expect(r.stdout + r.stderr).not.toContain(demo.owner);
      expect(r.stdout + r.stderr).not.toContain(demo.revoked);
    }
  });
});

describe('exit codes (docs/cli.md#output-errors-and-exit-codes), each provoked for real', () => {
  let stubs: Stub[] = [];
  afterAll(async () => {
    for (const s of stubs) await s.close();
    stubs = [];
  });
  const env = (extra: Record<string, string> = {}) => ({
    WCM_CONFIG_DIR: fresh(),
    WCM_BASE_URL: base,
    WCM_TOKEN: demo.owner,
    WCM_WORKSPACE: demo.ws1,
    ...extra,
  });

  it.each([
    ['0 ok', async () => wcm(['lists', 'ls'], { env: env() }), 0, ''],
    [
      '1 network refused',
      async () =>
        wcm(['lists', 'ls'], {
          env: env({ WCM_BASE_URL: `http://127.0.0.1:${await deadPort()}/v1`, WCM_RETRIES: '1' }),
        }),
      1,
      'No server is answering at http://127.0.0.1:',
    ],
    [
      '1 server 5xx',
      async () => {
        const s = await httpStub(() => ({ status: 500, body: problem(500, 'internal_error') }));
        stubs.push(s);
        return wcm(['lists', 'ls'], { env: env({ WCM_BASE_URL: s.base }) });
      },
      1,
      'internal_error',
    ],
    [
      '2 usage: missing flag',
      async () => wcm(['lists', 'create', '--title', 'T'], { env: env() }),
      2,
      'Missing --template',
    ],
    [
      '2 usage: unknown option',
      async () => wcm(['lists', 'ls', '--bogus'], { env: env() }),
      2,
      "unknown option '--bogus'",
    ],
    [
      '2 usage: missing argument',
      async () => wcm(['profile', 'use'], { env: env() }),
      2,
      "missing required argument 'profile'",
    ],
    [
      '3 validation (422)',
      async () => wcm(['lists', 'create', '--title', 'T', '--template', 'nope'], { env: env() }),
      3,
      'template_slug',
    ],
    [
      '4 not authenticated (401)',
      async () => wcm(['lists', 'ls'], { env: env({ WCM_TOKEN: demo.revoked }) }),
      4,
      'invalid_token',
    ],
    [
      '4 not allowed (403)',
      async () => wcm(['lists', 'ls'], { env: env({ WCM_TOKEN: demo.support }) }),
      4,
      'insufficient_ability',
    ],
    ['4 no token at all', async () => wcm(['lists', 'ls'], { env: env({ WCM_TOKEN: '' }) }), 4, 'wcm auth login'],
    ['5 not found (404)', async () => wcm(['api', '/nope'], { env: env() }), 5, 'route_not_found'],
    [
      '6 rate limited after retries (429)',
      async () => {
        const s = await httpStub(() => ({
          status: 429,
          headers: { 'retry-after': '0' },
          body: problem(429, 'rate_limited'),
        }));
        stubs.push(s);
        const r = await wcm(['lists', 'ls'], { env: env({ WCM_BASE_URL: s.base, WCM_RETRIES: '2' }) });
        expect(s.requests).toHaveLength(3);
        return r;
      },
      6,
      'rate_limited',
    ],
  ] as const)('%s', async (_name, run, code, stderr) => {
    const r = await run();
    expect(r.exitCode).toBe(code);
    expect(r.stderr).toContain(stderr);
  });

  it('--json errors: the problem object as JSON on stderr, nothing on stdout', async () => {
    const r = await wcm(['--json', 'lists', 'create', '--title', 'T', '--template', 'nope'], { env: env() });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({
      status: 422,
      code: 'validation_failed',
      title: 'Validation failed',
      errors: { template_slug: [expect.any(String)] },
    });
  });
});

describe('no waiting when nothing can be asked', () => {
  it.each([[['lists', 'create']], [['auth', 'login']], [['profile', 'use']]])(
    'piped `wcm %j` exits 2 at once even with standard input left open',
    async (args) => {
      const started = Date.now();
      const proc = wcm([...args], {
        env: { WCM_CONFIG_DIR: fresh(), WCM_BASE_URL: base, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1, CI: '' },
        timeout: 8000,
      });
      const r = await proc;
      expect(r.timedOut).toBe(false);
      expect(r.exitCode).toBe(2);
      expect(Date.now() - started).toBeLessThan(5000);
    },
  );
});

describe('precedence: flag > environment > profile', () => {
  it('the base URL and workspace come from the flag, else the environment, else the profile', async () => {
    const seen = {
      profile: await httpStub(() => emptyPage),
      env: await httpStub(() => emptyPage),
      flag: await httpStub(() => emptyPage),
    };
    try {
      const cfg = fresh();
      writeFileSync(
        path.join(cfg, 'config.json'),
        JSON.stringify({
          profiles: { default: { base_url: seen.profile.base, token: demo.owner, workspace: demo.ws1 } },
        }),
      );
      const run = (args: string[], extra: Record<string, string> = {}) =>
        wcm([...args, 'lists', 'ls'], { env: { WCM_CONFIG_DIR: cfg, ...extra } });
      const last = (s: Stub) => s.requests[s.requests.length - 1]?.url;

      expect((await run([])).exitCode).toBe(0);
      expect(last(seen.profile)).toBe(`/v1/workspaces/${demo.ws1}/lists`);

      // The profile's token is bound to the profile's origin (issue 18): the other hosts get an
      // explicit WCM_TOKEN, which goes wherever the user points it.
      expect(
        (await run([], { WCM_BASE_URL: seen.env.base, WCM_WORKSPACE: demo.ws2, WCM_TOKEN: demo.support })).exitCode,
      ).toBe(0);
      expect(last(seen.env)).toBe(`/v1/workspaces/${demo.ws2}/lists`);

      expect(
        (
          await run(['--base-url', seen.flag.base, '--workspace', demo.ws3], {
            WCM_BASE_URL: seen.env.base,
            WCM_WORKSPACE: demo.ws2,
            WCM_TOKEN: demo.support,
          })
        ).exitCode,
      ).toBe(0);
      expect(last(seen.flag)).toBe(`/v1/workspaces/${demo.ws3}/lists`);

      expect([seen.profile, seen.env, seen.flag].map((s) => s.requests.length)).toEqual([1, 1, 1]);
      expect([seen.profile, seen.env, seen.flag].map((s) => s.requests[0].headers.authorization)).toEqual([
        `Bearer ${demo.owner}`,
        `Bearer ${demo.support}`,
        `Bearer ${demo.support}`,
      ]);
    } finally {
      for (const s of Object.values(seen)) await s.close();
    }
  });

  it("WCM_TOKEN outranks the profile's token", async () => {
    const s = await httpStub(() => emptyPage);
    try {
      const cfg = fresh();
      writeFileSync(
        path.join(cfg, 'config.json'),
        JSON.stringify({ profiles: { default: { base_url: s.base, token: demo.owner, workspace: demo.ws1 } } }),
      );
      await wcm(['lists', 'ls'], { env: { WCM_CONFIG_DIR: cfg, WCM_TOKEN: demo.ciWriter } });
      expect(s.requests[0].headers.authorization).toBe(`Bearer ${demo.ciWriter}`);
    } finally {
      await s.close();
    }
  });
});

describe('retries', () => {
  it('honours Retry-After: a 429 with Retry-After: 1, then success', async () => {
    const s = await httpStub((_r, n) =>
      n === 1
        ? { status: 429, headers: { 'retry-after': '1' }, body: problem(429, 'rate_limited') }
        : {
            status: 200,
            body: {
              data: [{ id: 'x1', title: 'After wait', dashboard_url: 'http://d/x1' }],
              meta: { request_id: 'r', next_cursor: null },
            },
          },
    );
    try {
      const r = await wcm(['lists', 'ls', '--json'], {
        env: { WCM_CONFIG_DIR: fresh(), WCM_BASE_URL: s.base, WCM_TOKEN: demo.owner, WCM_WORKSPACE: demo.ws1 },
      });
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual([{ id: 'x1', title: 'After wait', dashboard_url: 'http://d/x1' }]);
      expect(s.requests).toHaveLength(2);
      expect(s.requests[1].at - s.requests[0].at).toBeGreaterThanOrEqual(950);
    } finally {
      await s.close();
    }
  });
});
