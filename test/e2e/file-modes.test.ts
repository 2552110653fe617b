// Files that hold data or secrets (docs/security.md#control-plane-logs-and-files): created 0600 in 0700 directories — data file,
// journal, snapshots, exports, `wcm seed --output`; config writes never follow a symbolic link.
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wcm } from '../support/cli.js';
import { ROOT, demo, onPort, tempDir } from '../support/server.js';

const mode = (f: string) => (statSync(f).mode & 0o777).toString(8);

let server: Awaited<ReturnType<typeof onPort>>;
let tmp: ReturnType<typeof tempDir>;
let dataFile: string;
beforeAll(async () => {
  tmp = tempDir('wcm-modes-');
  // A data file in a directory the server creates.
  dataFile = path.join(tmp.dir, 'new', 'dir', 'store.json');
  server = await onPort({ dataFile });
});
afterAll(async () => {
  await server.close();
  tmp.cleanup();
});

describe('data files', () => {
  it('the data file and its journal are 0600 in a directory created 0700', async () => {
    await fetch(`${server.url}/workspaces/${demo.ws1}/lists`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'x', template_slug: 'faq' }),
    });
    expect(mode(path.dirname(dataFile))).toBe('700');
    const files = readdirSync(path.dirname(dataFile)).filter(
      (f) =>
        f.startsWith('store.json') && !f.endsWith('.lock') && statSync(path.join(path.dirname(dataFile), f)).isFile(),
    );
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect([f, mode(path.join(path.dirname(dataFile), f))]).toEqual([f, '600']);
  });

  it('a snapshot (control plane) is 0600 in a 0700 directory', async () => {
    const res = await fetch(`${new URL(server.url).origin}/_emulator/snapshots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'modes' }),
    });
    expect(res.status).toBe(201);
    const dir = `${dataFile}.snapshots`;
    expect(mode(dir)).toBe('700');
    expect(mode(path.join(dir, 'modes.json'))).toBe('600');
  });

  it('wcm local export and wcm seed --output write 0600 files (the seed report into a new 0700 directory)', async () => {
    const env = {
      WCM_CONFIG_DIR: path.join(tmp.dir, 'cfg'),
      WCM_BASE_URL: server.url,
      WCM_TOKEN: demo.owner,
      WCM_WORKSPACE: demo.ws1,
      WCM_KEYCHAIN: 'off',
    };
    const out = path.join(tmp.dir, 'reports', 'seeded.json');
    const r = await wcm(['seed', path.join(ROOT, 'fixtures/ci-seed.steps.json'), '--output', out], { env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(mode(out)).toBe('600');
    expect(mode(path.dirname(out))).toBe('700');
    const exported = path.join(tmp.dir, 'export.json');
    const e = await wcm(['local', 'export', exported, '--data', dataFile], { env });
    expect(e.exitCode, e.stderr).toBe(0);
    expect(mode(exported)).toBe('600');
  });
});

describe("directories that already exist (wcm tightens its own, never the user's)", () => {
  /** A directory made with `mode` whatever the umask, as an older wcm or the user left it. */
  const dirWithMode = (dir: string, m: number) => {
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, m);
    return dir;
  };

  it('the default data directory .wcm, made 0755 earlier, is 0700 after `wcm local import`; a project directory keeps 0755, also with `--data ./x.json`', async () => {
    const project = dirWithMode(path.join(tmp.dir, 'project'), 0o755);
    const data = dirWithMode(path.join(project, '.wcm'), 0o755);
    const env = { WCM_CONFIG_DIR: path.join(tmp.dir, 'cfg'), WCM_KEYCHAIN: 'off' };
    const demoFixture = path.join(ROOT, 'fixtures/demo.json');
    const r = await wcm(['local', 'import', demoFixture], { cwd: project, env });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain('wcm_pat_');
    expect([mode(data), mode(path.join(data, 'store.json')), mode(project)]).toEqual(['700', '600', '755']);
    // A data file the user names in their own directory: that directory is theirs.
    const named = await wcm(['local', 'import', demoFixture, '--data', './x.json'], { cwd: project, env });
    expect(named.exitCode, named.stderr).toBe(0);
    expect([mode(project), mode(path.join(project, 'x.json'))]).toEqual(['755', '600']);
    // A .wcm that is a link to a directory the user chose: the data goes there, its mode stays.
    const linked = dirWithMode(path.join(tmp.dir, 'project-linked'), 0o755);
    const shared = dirWithMode(path.join(tmp.dir, 'shared-data'), 0o755);
    symlinkSync(shared, path.join(linked, '.wcm'));
    const viaLink = await wcm(['local', 'import', demoFixture], { cwd: linked, env });
    expect(viaLink.exitCode, viaLink.stderr).toBe(0);
    expect([mode(shared), mode(path.join(shared, 'store.json'))]).toEqual(['755', '600']);
  });

  it('a snapshots directory made 0755 earlier is 0700 after the next snapshot is saved', async () => {
    const dir = dirWithMode(`${dataFile}.snapshots`, 0o755);
    const res = await fetch(`${new URL(server.url).origin}/_emulator/snapshots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'tightened' }),
    });
    expect(res.status).toBe(201);
    expect([mode(dir), mode(path.join(dir, 'tightened.json'))]).toEqual(['700', '600']);
  });

  it('the default config directory made 0755 earlier is 0700 after a login; a WCM_CONFIG_DIR keeps its mode', async () => {
    const xdg = dirWithMode(path.join(tmp.dir, 'xdg'), 0o755);
    const own = dirWithMode(path.join(xdg, 'wcm'), 0o755);
    const login = (env: Record<string, string>) =>
      wcm(['auth', 'login', '--with-token', '--base-url', server.url], {
        env: { WCM_KEYCHAIN: 'off', WCM_CONFIG_DIR: undefined, ...env },
        input: demo.owner,
      });
    const r = await login({ XDG_CONFIG_HOME: xdg });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(demo.owner);
    expect([mode(own), mode(path.join(own, 'config.json')), mode(xdg)]).toEqual(['700', '600', '755']);
    const named = dirWithMode(path.join(tmp.dir, 'named-config'), 0o755);
    const n = await login({ WCM_CONFIG_DIR: named });
    expect(n.exitCode, n.stderr).toBe(0);
    expect([mode(named), mode(path.join(named, 'config.json'))]).toEqual(['755', '600']);
  });
});

describe('the config file', () => {
  it('is not written through a symbolic link: exit 1 saying so, the link and its target unchanged', async () => {
    const dir = path.join(tmp.dir, 'linked-config');
    mkdirSync(dir);
    const victim = path.join(tmp.dir, 'victim.json');
    const before = JSON.stringify({
      profiles: { a: { base_url: 'http://127.0.0.1:1/v1' }, b: { base_url: 'http://127.0.0.1:2/v1' } },
    });
    writeFileSync(victim, before, { mode: 0o644 });
    symlinkSync(victim, path.join(dir, 'config.json'));
    const r = await wcm(['profile', 'use', 'b'], { env: { WCM_CONFIG_DIR: dir, WCM_KEYCHAIN: 'off' } });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('is a symbolic link');
    expect(r.stderr).toContain('Replace it with a regular file');
    expect(readFileSync(victim, 'utf8')).toBe(before);
    expect(mode(victim)).toBe('644');
    expect(lstatSync(path.join(dir, 'config.json')).isSymbolicLink()).toBe(true);
  });

  it('a config directory wcm creates is 0700, its file 0600', async () => {
    const dir = path.join(tmp.dir, 'fresh-config', 'wcm');
    const r = await wcm(['auth', 'login', '--with-token', '--base-url', server.url], {
      env: { WCM_CONFIG_DIR: dir, WCM_KEYCHAIN: 'off' },
      input: demo.owner,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(path.join(dir, 'config.json'))).toBe(true);
    expect(mode(dir)).toBe('700');
    expect(mode(path.join(dir, 'config.json'))).toBe('600');
  });
});
