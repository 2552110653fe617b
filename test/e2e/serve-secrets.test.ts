// Secrets `wcm serve` announces (docs/security.md#control-plane-logs-and-files), through the real binary: one from the environment
// (WCM_ADMIN_TOKEN, WCM_WEBHOOK_SECRET) is never printed; a generated one is printed once, on a
// terminal, and written to the profile; piped, it is only written to the profile.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { BIN, spawnServe } from '../support/cli.js';
import { DEMO, tempDir } from '../support/server.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('wcm-secrets-');
});
afterEach(() => tmp.cleanup());

const profile = () => JSON.parse(readFileSync(path.join(tmp.dir, 'cfg', 'config.json'), 'utf8')).profiles.local;

/**
 * `wcm serve` piped: every line it printed, stopped once it started. The lines after `wcm listening
 * on` (the secrets among them) are written in the same tick, before a SIGTERM can be handled, so
 * stopping at once loses none of them.
 */
async function servePiped(env: Record<string, string | undefined>) {
  const s = await spawnServe(['--data', path.join(tmp.dir, 'store.json'), '--seed', DEMO], {
    env: { WCM_CONFIG_DIR: path.join(tmp.dir, 'cfg'), WCM_KEYCHAIN: 'off', ...env },
  });
  s.proc.kill('SIGTERM');
  const r = await s.proc;
  return `${s.lines.join('\n')}\n${String(r.stderr ?? '')}`;
}

/**
 * `wcm serve` on a pseudo-terminal (util-linux `script`): what the screen showed until it was
 * stopped once it started (as piped: its start-up lines are all written by then). The shell
 * inside writes its pid (`timeout`'s after exec, which hands a SIGTERM on to the server).
 */
async function serveOnTerminal(env: Record<string, string | undefined>) {
  const pidFile = path.join(tmp.dir, 'serve.pid');
  const command = `echo $$ > '${pidFile}'; exec timeout -s TERM 20 node '${BIN}' serve --port 0 --data '${path.join(tmp.dir, 'store.json')}' --seed '${DEMO}'`;
  const run = execa('script', ['-qfec', command, '/dev/null'], {
    reject: false,
    env: {
      NO_COLOR: '1',
      CI: '',
      TERM: 'xterm',
      WCM_CONFIG_DIR: path.join(tmp.dir, 'cfg'),
      WCM_KEYCHAIN: 'off',
      ...env,
    },
    timeout: 30_000,
  });
  let screen = '';
  run.stdout!.on('data', (d: Buffer) => {
    const seen = screen.includes('wcm listening on');
    screen += d.toString();
    if (!seen && screen.includes('wcm listening on')) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
  });
  return (await run).stdout;
}

it('secrets from the environment are never printed, piped or on a terminal', async () => {
  const env = {
    WCM_ADMIN_TOKEN: 'wcm_admin_fromTheEnvironment0123456789',
    WCM_WEBHOOK_SECRET: 'whsec_fromTheEnvironment0123456789',
  };
  for (const out of [await servePiped(env), await serveOnTerminal(env)]) {
    expect(out).toContain('admin token from WCM_ADMIN_TOKEN');
    expect(out).toContain('signing secret from WCM_WEBHOOK_SECRET');
    expect(out).not.toContain('fromTheEnvironment');
  }
}, 60_000);

it('piped, generated secrets are not printed but written to the profile; later starts print them neither', async () => {
  const first = await servePiped({ WCM_ADMIN_TOKEN: undefined, WCM_WEBHOOK_SECRET: undefined });
  const saved = profile();
  expect(saved.admin_token).toMatch(/^wcm_admin_/);
  expect(saved.webhook_secret).toMatch(/^whsec_/);
  expect(first).not.toContain(saved.admin_token);
  expect(first).not.toContain(saved.webhook_secret);
  expect(first).toMatch(/admin token generated now, not printed; saved in profile `local`/);
  const second = await servePiped({ WCM_ADMIN_TOKEN: undefined, WCM_WEBHOOK_SECRET: undefined });
  expect(second).toMatch(/admin token kept in the store, not printed; saved in profile `local`/);
  expect(second).not.toContain(saved.admin_token);
  expect(second).not.toContain(saved.webhook_secret);
  expect(profile()).toMatchObject({ admin_token: saved.admin_token, webhook_secret: saved.webhook_secret });
}, 60_000);

it('on a terminal, a generated secret is printed once: the next start shows it no more', async () => {
  const first = await serveOnTerminal({ WCM_ADMIN_TOKEN: undefined, WCM_WEBHOOK_SECRET: undefined });
  const saved = profile();
  expect(first).toContain(`admin token ${saved.admin_token} (generated now, shown once`);
  expect(first).toContain(`signing secret ${saved.webhook_secret} (generated now, shown once`);
  const second = await serveOnTerminal({ WCM_ADMIN_TOKEN: undefined, WCM_WEBHOOK_SECRET: undefined });
  expect(second).toContain('admin token kept in the store, not printed');
  expect(second).not.toContain(saved.admin_token);
  expect(second).not.toContain(saved.webhook_secret);
}, 60_000);

it('piped, a first start prints neither the owner token nor the admin token; --show-secrets prints both (issue 48: one rule)', async () => {
  const plain = await spawnServe(['--data', path.join(tmp.dir, 'a.json')], {
    env: { WCM_CONFIG_DIR: path.join(tmp.dir, 'cfg'), WCM_KEYCHAIN: 'off', WCM_ADMIN_TOKEN: undefined },
  });
  plain.proc.kill('SIGTERM');
  await plain.proc;
  const quiet = plain.lines.join('\n');
  const saved = profile();
  expect(saved.token).toMatch(/^wcm_pat_/);
  expect(saved.admin_token).toMatch(/^wcm_admin_/);
  expect(quiet).not.toContain(saved.token);
  expect(quiet).not.toContain(saved.admin_token);
  expect(quiet).toContain('an all-abilities token, not printed (stdout is not a terminal; `wcm auth token` prints it');
  expect(quiet).toMatch(/admin token generated now, not printed; saved in profile `local`/);

  const shown = await spawnServe(['--data', path.join(tmp.dir, 'b.json'), '--show-secrets'], {
    env: { WCM_CONFIG_DIR: path.join(tmp.dir, 'cfg2'), WCM_KEYCHAIN: 'off', WCM_ADMIN_TOKEN: undefined },
  });
  shown.proc.kill('SIGTERM');
  await shown.proc;
  const loud = shown.lines.join('\n');
  const saved2 = JSON.parse(readFileSync(path.join(tmp.dir, 'cfg2', 'config.json'), 'utf8')).profiles.local;
  expect(loud).toContain(`  ${saved2.token}`);
  expect(loud).toContain(`admin token ${saved2.admin_token} (generated now, shown once`);
}, 60_000);
