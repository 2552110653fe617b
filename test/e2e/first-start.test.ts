import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Store } from '../../src/store/json/store.js';
import { spawnServe, wcm } from '../support/cli.js';
import { tempDir } from '../support/server.js';

// Issue 37 item 1: a first start that fails must not leave a store nobody can log in to, and a
// store whose first token was never shown says how to get in (`wcm local token`).
let dir: string;
let cleanup: () => void;
const procs: Array<{ kill(sig?: NodeJS.Signals): boolean }> = [];
beforeEach(() => ({ dir, cleanup } = tempDir('wcm-first-')));
afterEach(() => {
  for (const p of procs.splice(0)) p.kill('SIGKILL');
  cleanup();
});

async function serve(args: string[], config: string) {
  const s = await spawnServe(args, { cwd: dir, env: { WCM_CONFIG_DIR: config } });
  procs.push(s.proc);
  return s;
}
async function stop(s: Awaited<ReturnType<typeof serve>>) {
  s.proc.kill('SIGTERM');
  await s.proc;
}
const until = async (cond: () => boolean, what: string) => {
  const end = Date.now() + 10_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};
const me = (url: string, token: string) => fetch(`${url}/me`, { headers: { authorization: `Bearer ${token}` } });

it('on a busy port the store stays empty, so the retry creates the owner, prints its token and saves the profile', async () => {
  const busy = net.createServer();
  await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
  const port = (busy.address() as net.AddressInfo).port;
  const data = path.join(dir, 'store.json');
  const config = path.join(dir, 'config');
  try {
    const failed = await wcm(['serve', '--port', String(port), '--data', data], {
      env: { WCM_CONFIG_DIR: config },
      cwd: dir,
    });
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain(`Port ${port} on 127.0.0.1 is already in use.`);
    expect(failed.stdout).not.toContain('wcm_pat_');
  } finally {
    busy.close();
  }
  const store = await Store.openReadOnly(data);
  expect(store.isEmpty()).toBe(true);
  await store.close();

  const s = await serve(['--data', data, '--show-secrets'], config);
  await until(() => s.lines.some((l) => /^\s+wcm_pat_/.test(l)), 'the token line');
  const token = s.lines.find((l) => /^\s+wcm_pat_/.test(l))!.trim();
  expect((await me(s.url, token)).status).toBe(200);
  const saved = JSON.parse(readFileSync(path.join(config, 'config.json'), 'utf8'));
  expect(saved.profiles.local).toMatchObject({ base_url: s.url, token });
  await stop(s);
});

it('a store whose first token was never shown: serve says `wcm local token`, which saves a token the next serve uses', async () => {
  const data = path.join(dir, 'store.json');
  // The first start's token went to a config directory that is gone (another machine, a wiped home).
  const first = await serve(['--data', data], path.join(dir, 'lost-config'));
  await until(() => first.lines.some((l) => l.includes('profile `local`')), 'the profile line');
  await stop(first);

  const config = path.join(dir, 'config');
  const second = await serve(['--data', data], config);
  await until(() => second.lines.some((l) => l.includes('no saved profile holds a token')), 'the way-in hint');
  expect(second.lines.join('\n')).toContain(`\`wcm local token --data ${data}\` prints a fresh owner token`);
  expect(second.lines.join('\n')).toContain(`remove ${data} to start over`);
  expect(second.lines.join('\n')).not.toContain('wcm_pat_');

  // While the server runs, the file is its own: refused with what to do.
  const refused = await wcm(['local', 'token', '--data', data], { env: { WCM_CONFIG_DIR: config } });
  expect(refused.exitCode).toBe(1);
  expect(refused.stderr).toMatch(/A wcm server \(pid \d+\) is running on .*store\.json; stop it/);
  await stop(second);

  const issued = await wcm(['local', 'token', '--data', data], { env: { WCM_CONFIG_DIR: config } });
  expect(issued.exitCode, issued.stderr).toBe(0);
  const token = issued.stdout.trim();
  expect(token).toMatch(/^wcm_pat_[A-Za-z0-9]{32,}$/);
  expect(issued.stderr).toContain('saved as profile `local`');

  const third = await serve(['--data', data], config);
  await until(() => third.lines.some((l) => l.includes('profile `local` now points at')), 'the re-point line');
  expect(third.lines.join('\n')).not.toContain('no saved profile holds a token');
  expect((await me(third.url, token)).status).toBe(200);
  const ls = await wcm(['lists', 'ls', '--json'], { env: { WCM_CONFIG_DIR: config } });
  expect(ls.exitCode, ls.stderr).toBe(0);
  expect(JSON.parse(ls.stdout)).toEqual([]);
  await stop(third);

  const missing = await wcm(['local', 'token', '--data', path.join(dir, 'nope.json')], {
    env: { WCM_CONFIG_DIR: config },
  });
  expect(missing.exitCode).toBe(1);
  expect(missing.stderr).toContain('No data file at');
});
