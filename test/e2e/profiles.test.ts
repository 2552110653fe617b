import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';

// Issue 37 item 3: profiles never switch or move silently; `wcm serve --profile NAME` saves to NAME.
let dir: string;
let cleanup: () => void;
const procs: Array<{ kill(sig?: NodeJS.Signals): boolean }> = [];
beforeEach(() => ({ dir, cleanup } = tempDir('wcm-profiles-')));
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
  cleanup();
});
const config = () => JSON.parse(readFileSync(path.join(dir, 'config', 'config.json'), 'utf8'));

async function serve(args: string[], stderr: string[] = []) {
  const s = await spawnServe(args, { cwd: dir, env: { WCM_CONFIG_DIR: path.join(dir, 'config') } });
  s.proc.stderr!.on('data', (d: Buffer) => stderr.push(d.toString()));
  procs.push(s.proc);
  return s;
}
const until = async (cond: () => boolean, what: string) => {
  const end = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

it('serve --profile NAME saves to NAME (with the admin token), and a second server taking `local` says it moved it', async () => {
  const a = await serve(['--data', path.join(dir, 'a.json'), '--seed', DEMO]);
  await until(() => a.lines.some((l) => l.includes('profile `local`')), 'profile line of a');
  const b = await serve(['--profile', 's3', '--data', path.join(dir, 'b.json'), '--seed', DEMO]);
  await until(() => b.lines.some((l) => l.includes('profile `s3`')), 'profile line of b');
  expect(config().profiles.s3).toMatchObject({ base_url: b.url, token: demo.owner });
  expect(config().profiles.s3.admin_token).toMatch(/^wcm_admin_/);
  expect(config().profiles.local.base_url).toBe(a.url);
  // The admin token saved in s3 drives the control plane of b.
  const snap = await wcm(['--profile', 's3', 'local', 'snapshot', 'save', 'x'], {
    env: { WCM_CONFIG_DIR: path.join(dir, 'config') },
  });
  expect(snap.exitCode, snap.stderr).toBe(0);

  // A third server on a fresh store, while a still answers for `local`'s token: `local` is never
  // taken over; the new server gets `local-PORT` and says so.
  const c = await serve(['--data', path.join(dir, 'c.json'), '--seed', DEMO]);
  const cName = `local-${new URL(c.url).port}`;
  await until(() => c.lines.some((l) => l.includes(`uses profile \`${cName}\``)), 'the profile line of c');
  expect(c.lines.join('\n')).toContain(
    `profile \`local\` holds a live token for ${a.url} (another server), so this server uses profile \`${cName}\``,
  );
  expect(config().profiles.local.base_url).toBe(a.url);
  expect(config().profiles[cName]).toMatchObject({ base_url: c.url, token: demo.owner });

  // Once a is gone, `local` is free again: a fourth server takes it over, and says where it pointed.
  a.proc.kill('SIGTERM');
  await a.proc;
  const d = await serve(['--data', path.join(dir, 'd.json'), '--seed', DEMO]);
  await until(
    () => d.lines.some((l) => l.includes('profile `local`') && l.includes('pointed at')),
    'the overwrite line',
  );
  expect(d.lines.join('\n')).toContain(
    `profile \`local\` pointed at ${a.url}, where no server answers for its token now; it now points at this server`,
  );
  expect(config().profiles.local.base_url).toBe(d.url);
});

it('two servers side by side: each keeps a profile with a working token and admin token (issue 48)', async () => {
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  // Two first starts on empty stores: each creates its own owner and token, shown once.
  const a = await serve(['--data', path.join(dir, 'a.json')]);
  await until(() => a.lines.some((l) => l.includes('control plane')), 'a started');
  const b = await serve(['--data', path.join(dir, 'b.json')]);
  const bName = `local-${new URL(b.url).port}`;
  await until(() => b.lines.some((l) => l.includes('control plane')), 'b started');
  expect(b.lines.join('\n')).toContain(`saved as profile \`${bName}\``);
  expect(b.lines.join('\n')).not.toContain('in no profile');
  expect(config().profiles.local.base_url).toBe(a.url);
  expect(config().profiles[bName].base_url).toBe(b.url);
  for (const [profile, url] of [
    ['local', a.url],
    [bName, b.url],
  ]) {
    const me = await wcm(['--profile', profile, 'auth', 'status', '--json'], { env });
    expect(me.exitCode, me.stderr).toBe(0);
    expect(JSON.parse(me.stdout)).toMatchObject({ base_url: url });
    const ls = await wcm(['--profile', profile, 'lists', 'ls', '--json'], { env });
    expect(ls.exitCode, ls.stderr).toBe(0);
    const clock = await wcm(['--profile', profile, 'local', 'clock', '--json'], { env });
    expect(clock.exitCode, clock.stderr).toBe(0);
  }
  // Without --profile, `local` (the current one) still reaches a.
  const plain = await wcm(['auth', 'status', '--json'], { env });
  expect(JSON.parse(plain.stdout)).toMatchObject({ base_url: a.url, profile: 'local' });
});

it('a second server on a store that holds the token of `local` never unsets which profile commands use', async () => {
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  // b.json: a store seeded elsewhere (another config), so b's start below is not a first start.
  const seedB = await spawnServe(['--data', path.join(dir, 'b.json'), '--seed', DEMO], {
    cwd: dir,
    env: { WCM_CONFIG_DIR: path.join(dir, 'other-config') },
  });
  procs.push(seedB.proc);
  await until(() => seedB.lines.some((l) => l.includes('profile `local`')), 'the seeding server');
  seedB.proc.kill('SIGTERM');
  await seedB.proc;
  // a: the first server of this config; `local` is its only profile, current because it is alone.
  const a = await serve(['--data', path.join(dir, 'a.json'), '--seed', DEMO]);
  await until(() => a.lines.some((l) => l.includes('profile `local`')), 'profile line of a');
  const b = await serve(['--data', path.join(dir, 'b.json')]);
  const bName = `local-${new URL(b.url).port}`;
  await until(() => b.lines.some((l) => l.includes(`profile \`${bName}\` now holds`)), 'the profile line of b');
  expect(config().profiles[bName]).toMatchObject({ base_url: b.url, token: demo.owner });
  const plain = await wcm(['auth', 'status', '--json'], { env });
  expect(plain.exitCode, plain.stderr).toBe(0);
  expect(JSON.parse(plain.stdout)).toMatchObject({ base_url: a.url, profile: 'local' });
});

it('auth login again to the same origin keeps the admin token, signing secret and workspace; another origin drops them (issue 48)', async () => {
  const s = await serve(['--data', path.join(dir, 'a.json'), '--seed', DEMO]);
  await until(() => s.lines.some((l) => l.includes('control plane')), 'started');
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  const before = config().profiles.local;
  expect(before.admin_token).toMatch(/^wcm_admin_/);
  expect(before.webhook_secret).toBeTruthy();
  expect(before.workspace).toBe(demo.ws1);
  const again = await wcm(['auth', 'login', '--with-token', '--profile', 'local', '--base-url', s.url], {
    env,
    input: demo.owner,
  });
  expect(again.exitCode, again.stderr).toBe(0);
  expect(config().profiles.local).toMatchObject({
    base_url: s.url,
    admin_token: before.admin_token,
    webhook_secret: before.webhook_secret,
    workspace: before.workspace,
  });
  const clock = await wcm(['local', 'clock', '--json'], { env });
  expect(clock.exitCode, clock.stderr).toBe(0);

  const other = s.url.replace('127.0.0.1', 'localhost');
  const moved = await wcm(['auth', 'login', '--with-token', '--profile', 'local', '--base-url', other], {
    env,
    input: demo.owner,
  });
  expect(moved.exitCode, moved.stderr).toBe(0);
  const after = config().profiles.local;
  expect(after.base_url).toBe(other);
  expect(after.admin_token).toBeUndefined();
  expect(after.webhook_secret).toBeUndefined();
});

it('auth login --profile cy says when it makes cy the active profile, and when it re-points cy', async () => {
  const s = await serve(['--profile', 'local', '--data', path.join(dir, 'a.json'), '--seed', DEMO]);
  await until(() => s.lines.some((l) => l.includes('profile `local`')), 'profile line');
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  // `local` is the only profile, so it is current without being chosen: a login to cy switches.
  const first = await wcm(['auth', 'login', '--profile', 'cy', '--base-url', s.url, '--with-token'], {
    env,
    input: demo.ciWriter,
  });
  expect(first.exitCode, first.stderr).toBe(0);
  expect(first.stderr).toContain('Active profile is now cy (was local; `wcm profile use local` switches back)');
  // Chosen now: a second login to another profile does not switch, and says nothing about it.
  const other = await wcm(['auth', 'login', '--profile', 'dz', '--base-url', s.url, '--with-token'], {
    env,
    input: demo.ciWriter,
  });
  expect(other.exitCode, other.stderr).toBe(0);
  expect(other.stderr).not.toContain('Active profile');
  expect(config().current_profile).toBe('cy');
  // Logging cy in to another address says where it pointed before.
  const moved = await wcm(
    ['auth', 'login', '--profile', 'cy', '--base-url', s.url.replace('127.0.0.1', 'localhost'), '--with-token'],
    { env, input: demo.ciWriter },
  );
  expect(moved.exitCode, moved.stderr).toBe(0);
  expect(moved.stderr).toContain(
    `Profile cy pointed at ${s.url}; it now points at ${s.url.replace('127.0.0.1', 'localhost')}.`,
  );
});

it("a workspace follows the host: WCM_TOKEN and WCM_BASE_URL for server B never take the active profile's workspace of A (issue 48)", async () => {
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  const a = await serve(['--data', path.join(dir, 'a.json'), '--seed', DEMO]);
  await until(() => a.lines.some((l) => l.includes('control plane')), 'a started');
  expect(config().profiles.local).toMatchObject({ base_url: a.url, workspace: demo.ws1 });
  // B: a first start on an empty store, one owner with exactly one workspace.
  const b = await serve(['--data', path.join(dir, 'b.json'), '--show-secrets']);
  await until(() => b.lines.some((l) => l.includes('control plane')), 'b started');
  const bToken = b.lines.find((l) => /^\s+wcm_pat_/.test(l))!.trim();
  const bWorkspace = /workspace (\S+) and an all-abilities token/.exec(b.lines.join('\n'))![1];

  for (const [i, extra] of [{ WCM_BASE_URL: b.url }, {}].entries()) {
    const args = 'WCM_BASE_URL' in extra ? ['lists', 'ls', '--json'] : ['lists', 'ls', '--json', '--base-url', b.url];
    const ls = await wcm(args, { env: { ...env, ...extra, WCM_TOKEN: bToken } });
    expect(ls.exitCode, ls.stderr).toBe(0);
    expect(JSON.parse(ls.stdout)).toHaveLength(i);
    const created = await wcm(
      [...args.slice(0, 0), 'lists', 'create', '--title', 'On B', '--template', 'faq', '--json', ...args.slice(3)],
      { env: { ...env, ...extra, WCM_TOKEN: bToken } },
    );
    expect(created.exitCode, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).dashboard_url).toContain(bWorkspace);
  }
  const status = await wcm(['auth', 'status', '--json'], { env: { ...env, WCM_BASE_URL: b.url, WCM_TOKEN: bToken } });
  expect(JSON.parse(status.stdout).workspace_source).toBe(
    `none: profile local's workspace belongs to ${new URL(a.url).origin}`,
  );
  // A's own commands still use the profile's workspace.
  const onA = await wcm(['lists', 'ls', '--json'], { env });
  expect(onA.exitCode, onA.stderr).toBe(0);
  expect(JSON.parse(onA.stdout).length).toBeGreaterThan(0);
});

it('auth logout, then a command with that profile: exit 4, not logged in (issue 48)', async () => {
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  const a = await serve(['--data', path.join(dir, 'a.json'), '--seed', DEMO]);
  await until(() => a.lines.some((l) => l.includes('control plane')), 'a started');
  // Ada reaches several workspaces: logged in without --workspace, the profile saves none.
  const login = await wcm(['auth', 'login', '--with-token', '--profile', 'ada', '--base-url', a.url], {
    env,
    input: demo.owner,
  });
  expect(login.exitCode, login.stderr).toBe(0);
  expect(config().profiles.ada.workspace).toBeUndefined();
  expect((await wcm(['auth', 'logout', '--profile', 'ada'], { env })).exitCode).toBe(0);
  const ls = await wcm(['--profile', 'ada', 'lists', 'ls'], { env });
  expect(ls.exitCode).toBe(4);
  expect(ls.stderr).toContain('Not logged in');
});

it('serve --profile NAME on a store another profile holds a token of: NAME gets it, and the admin token is never "in no profile" (issue 48)', async () => {
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  const data = path.join(dir, 'a.json');
  const a = await serve(['--data', data, '--seed', DEMO]);
  await until(() => a.lines.some((l) => l.includes('control plane')), 'a started');
  a.proc.kill('SIGTERM');
  await a.proc;
  // Again on the same store, under another profile and on another port.
  const b = await serve(['--profile', 'other', '--data', data]);
  await until(() => b.lines.some((l) => l.includes('control plane')), 'b started');
  const text = b.lines.join('\n');
  expect(text).not.toContain('in no profile');
  expect(text).toContain(
    `profile \`other\` now holds this server's token (the one profile \`local\` holds), for ${b.url}`,
  );
  expect(text).toMatch(/admin token kept in the store, not printed; saved in profile `other`/);
  expect(config().profiles.other).toMatchObject({ base_url: b.url, token: demo.owner, workspace: demo.ws1 });
  const clock = await wcm(['--profile', 'other', 'local', 'clock', '--json'], { env });
  expect(clock.exitCode, clock.stderr).toBe(0);
});

it('profile set-workspace sets the default workspace without a login; profile rm removes a profile (issue 48)', async () => {
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  const a = await serve(['--data', path.join(dir, 'a.json'), '--seed', DEMO]);
  await until(() => a.lines.some((l) => l.includes('control plane')), 'a started');
  const login = await wcm(['auth', 'login', '--with-token', '--profile', 'ada', '--base-url', a.url], {
    env,
    input: demo.owner,
  });
  expect(login.exitCode, login.stderr).toBe(0);
  expect(config().profiles.ada.workspace).toBeUndefined();
  // A workspace the token does not reach is refused, nothing saved.
  const wrong = await wcm(['--profile', 'ada', 'profile', 'set-workspace', '00000000-0000-4000-8000-000000000000'], {
    env,
  });
  expect(wrong.exitCode).toBe(2);
  expect(wrong.stderr).toContain('is not a workspace profile ada');
  expect(config().profiles.ada.workspace).toBeUndefined();
  const set = await wcm(['--profile', 'ada', 'profile', 'set-workspace', demo.ws2], { env });
  expect(set.exitCode, set.stderr).toBe(0);
  expect(config().profiles.ada.workspace).toBe(demo.ws2);
  expect(config().profiles.ada.token).toBe(demo.owner);
  const ls = await wcm(['--profile', 'ada', 'forms', 'ls', '--json'], { env });
  expect(ls.exitCode, ls.stderr).toBe(0);

  const rm = await wcm(['profile', 'rm', 'ada'], { env });
  expect(rm.exitCode, rm.stderr).toBe(0);
  expect(rm.stderr).toContain(`Removed profile ada (${a.url}).`);
  expect(config().profiles.ada).toBeUndefined();
  const again = await wcm(['profile', 'rm', 'ada'], { env });
  expect(again.exitCode).toBe(2);
});

it("a reset that removes the active profile's token warns (issue 48)", async () => {
  const env = { WCM_CONFIG_DIR: path.join(dir, 'config') };
  const a = await serve(['--data', path.join(dir, 'a.json'), '--seed', DEMO]);
  await until(() => a.lines.some((l) => l.includes('control plane')), 'a started');
  const seed = await wcm(['local', 'reset', '--to', 'seed'], { env });
  expect(seed.exitCode, seed.stderr).toBe(0);
  expect(seed.stderr).not.toContain('warning');
  const empty = await wcm(['local', 'reset', '--to', 'empty', '--yes'], { env });
  expect(empty.exitCode, empty.stderr).toBe(0);
  expect(empty.stderr).toContain(
    "warning: profile local's token is not in the state the server was reset to, so commands with that profile now exit 4",
  );
  expect((await wcm(['lists', 'ls'], { env })).exitCode).toBe(4);
});
