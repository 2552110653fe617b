import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProfileStore, configDir } from '../../src/cli/config.js';
import { CliError } from '../../src/cli/errors.js';
import { ROOT, tempDir } from '../support/server.js';

let dir: ReturnType<typeof tempDir>;
beforeEach(() => {
  dir = tempDir('wcm-config-test-');
});
afterEach(() => dir.cleanup());

/** The path conf itself computes for wcm's options, in a child with HOME pointed at a temp dir. */
async function confPath(env: Record<string, string | undefined>, home: string): Promise<string> {
  const script = `import Conf from 'conf'; process.stdout.write(new Conf({ projectName: 'wcm', projectSuffix: '' }).path);`;
  const clean = {
    ...process.env,
    WCM_CONFIG_DIR: undefined,
    XDG_CONFIG_HOME: undefined,
    APPDATA: undefined,
    HOME: home,
    USERPROFILE: home,
    ...env,
  };
  const r = await execa('node', ['--input-type=module', '-e', script], { cwd: ROOT, env: clean, extendEnv: false });
  return r.stdout;
}

describe('configDir: the file conf writes is the file reads read', () => {
  it.each([
    ['XDG_CONFIG_HOME set', (d: string) => ({ XDG_CONFIG_HOME: path.join(d, 'xdg') })],
    ['XDG_CONFIG_HOME unset: ~/.config', () => ({})],
  ])('%s: the same path as conf computes', async (_name, envOf) => {
    const home = path.join(dir.dir, 'home');
    mkdirSync(home);
    const env = envOf(dir.dir);
    expect(path.join(configDir(env, home), 'config.json')).toBe(await confPath(env, home));
  });

  it.each([
    ['darwin', {}, ['/Users/ada', 'Library', 'Preferences', 'wcm']],
    ['win32', { APPDATA: '/c/Users/ada/AppData/Roaming' }, ['/c/Users/ada/AppData/Roaming', 'wcm', 'Config']],
    ['win32', {}, ['/Users/ada', 'AppData', 'Roaming', 'wcm', 'Config']],
    ['linux', { XDG_CONFIG_HOME: '/xdg' }, ['/xdg', 'wcm']],
    ['linux', {}, ['/Users/ada', '.config', 'wcm']],
  ] as const)('%s %j: %j (env-paths for project wcm, no suffix)', (platform, env, parts) => {
    expect(configDir(env, '/Users/ada', platform)).toBe(path.join(...parts));
  });

  it('WCM_CONFIG_DIR wins, resolved against the working directory as conf does', () => {
    expect(configDir({ WCM_CONFIG_DIR: dir.dir, XDG_CONFIG_HOME: '/xdg' })).toBe(dir.dir);
    expect(configDir({ WCM_CONFIG_DIR: 'rel/cfg' })).toBe(path.resolve('rel/cfg'));
  });
});

describe('ProfileStore', () => {
  it('reads a missing file as no profiles and creates nothing', async () => {
    const cfg = path.join(dir.dir, 'absent');
    const p = await ProfileStore.open({ WCM_CONFIG_DIR: cfg });
    expect(p.list()).toEqual({});
    expect(p.current()).toBeUndefined();
    expect(existsSync(cfg)).toBe(false);
  });

  it('writes with mode 0600 (creating the directory), and reads back what it wrote', async () => {
    const cfg = path.join(dir.dir, 'new', 'cfg');
    const p = await ProfileStore.open({ WCM_CONFIG_DIR: cfg });
    await p.set('default', { base_url: 'http://a.test/v1', token: 'tok-a' });
    await p.set('ci', { base_url: 'http://b.test/v1' });
    await p.use('ci');
    expect(p.path).toBe(path.join(cfg, 'config.json'));
    expect(statSync(p.path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(p.path, 'utf8'))).toEqual({
      profiles: { default: { base_url: 'http://a.test/v1', token: 'tok-a' }, ci: { base_url: 'http://b.test/v1' } },
      current_profile: 'ci',
    });
    const again = await ProfileStore.open({ WCM_CONFIG_DIR: cfg });
    expect(again.current()).toBe('ci');
    expect(await again.remove('ci')).toBe(true);
    expect(await again.remove('ci')).toBe(false);
    expect(p.current()).toBe('default');
  });

  it('writes the file as conf (which older versions wrote it with) does: conf reads it, and writes the same bytes', async () => {
    const p = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir });
    await p.set('default', {
      base_url: 'http://a.test/v1',
      token: 'tok-a',
      oauth: { client_id: 'c', token_endpoint: 'e' },
    });
    await p.use('default');
    const ours = readFileSync(p.path, 'utf8');
    // conf opens the file, and writes what it read back through its own serializer.
    const script = `import Conf from 'conf';
const c = new Conf({ projectName: 'wcm', projectSuffix: '', cwd: process.argv[1], configFileMode: 0o600 });
const read = c.store;
c.store = read;
process.stdout.write(JSON.stringify(read));`;
    const r = await execa('node', ['--input-type=module', '-e', script, dir.dir], { cwd: ROOT });
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(ours));
    expect(readFileSync(p.path, 'utf8')).toBe(ours);
  });

  it('replaces the file whole: a new file renamed over it, no temporary file left beside it', async () => {
    const p = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir });
    await p.set('default', { base_url: 'http://a.test/v1' });
    const before = statSync(p.path).ino;
    await p.set('ci', { base_url: 'http://b.test/v1' });
    expect(statSync(p.path).ino).not.toBe(before);
    expect(readdirSync(dir.dir)).toEqual(['config.json']);
  });

  it('makes a file an older version left readable by others 0600 on the next write', async () => {
    const file = path.join(dir.dir, 'config.json');
    writeFileSync(file, JSON.stringify({ profiles: {} }), { mode: 0o644 });
    const p = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir });
    await p.set('default', { base_url: 'http://a.test/v1' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('sees what another process wrote since it opened (every read reads the file)', async () => {
    const p = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir });
    expect(p.get('local')).toBeUndefined();
    writeFileSync(
      path.join(dir.dir, 'config.json'),
      JSON.stringify({ profiles: { local: { base_url: 'http://127.0.0.1:4010/v1' } } }),
    );
    expect(p.get('local')).toEqual({ base_url: 'http://127.0.0.1:4010/v1' });
  });

  it.each([
    [
      'invalid JSON',
      (f: string) => writeFileSync(f, '{"profiles":{"default":{"token":"wcm_pat_secretInTheFile",}}}'),
      'SyntaxError',
    ],
    ['a directory', (f: string) => mkdirSync(f), 'EISDIR'],
  ])('a config file that is %s: a CliError naming the cause, quoting none of the text', async (_name, make, cause) => {
    make(path.join(dir.dir, 'config.json'));
    const err = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir }).catch((e) => e);
    expect(err).toBeInstanceOf(CliError);
    expect(err.message).toBe(`The wcm config file in ${dir.dir} cannot be read (${cause}).`);
    expect(`${err.message} ${err.hint}`).not.toContain('secret');
  });

  it('a file broken after opening: the error names the file, still quoting none of it', async () => {
    const p = await ProfileStore.open({ WCM_CONFIG_DIR: dir.dir });
    writeFileSync(path.join(dir.dir, 'config.json'), '{"token":"wcm_pat_secretInTheFile"');
    expect(() => p.list()).toThrowError(`The config file ${p.path} cannot be read (SyntaxError).`);
    await expect(p.set('x', { base_url: 'http://x.test/v1' })).rejects.toThrowError(/cannot be read \(SyntaxError\)/);
  });
});
