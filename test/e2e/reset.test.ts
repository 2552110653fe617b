import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, tempDir } from '../support/server.js';
import { onTerminal } from '../support/terminal.js';

// Issue 37 item 2: a bare `wcm local reset` never wipes everything without asking.
let d: ReturnType<typeof tempDir>;
let serve: Awaited<ReturnType<typeof spawnServe>>;
let env: Record<string, string>;
beforeAll(async () => {
  d = tempDir('wcm-reset-');
  env = { WCM_CONFIG_DIR: path.join(d.dir, 'config') };
  serve = await spawnServe(['--data', path.join(d.dir, 'store.json'), '--seed', DEMO], { env });
  const saved = await wcm(['local', 'snapshot', 'save', 'before-tests'], { env });
  expect(saved.exitCode, saved.stderr).toBe(0);
});
afterAll(async () => {
  serve?.proc.kill('SIGTERM');
  await serve?.proc;
  d?.cleanup();
});
const threads = async () => JSON.parse((await wcm(['threads', 'ls', '--json', '--limit', '5'], { env })).stdout).length;

it('piped, without --to: exit 2 naming the choices, and nothing is reset', async () => {
  const r = await wcm(['local', 'reset'], { env });
  expect(r.exitCode).toBe(2);
  expect(r.stderr).toContain(
    '`wcm local reset` needs `--to`: `seed` (what --seed loaded at first start), a snapshot name (`wcm local snapshot ls`), or `empty`',
  );
  expect(await threads()).toBe(5);
});

it('on a terminal it asks which state, seed first and empty last; empty is confirmed, and a no keeps the data', async () => {
  const t = onTerminal(['local', 'reset'], env);
  await t.when('Reset to', '');
  await t.when('empty', '\x1b[B\x1b[B\r'); // seed → before-tests → empty
  await t.when('Remove everything on the server, users and tokens included?', 'n\r');
  const r = await t.proc;
  expect(r.exitCode).toBe(1);
  const menu = t.screen();
  expect(menu.indexOf('seed')).toBeLessThan(menu.indexOf('before-tests'));
  expect(menu.indexOf('before-tests')).toBeLessThan(menu.indexOf('empty'));
  expect(menu).toContain('Nothing was reset.');
  expect(await threads()).toBe(5);
});

it('on a terminal, choosing a snapshot resets to it with no confirmation', async () => {
  const t = onTerminal(['local', 'reset'], env);
  await t.when('Reset to', '\x1b[B\r');
  const r = await t.proc;
  expect(r.exitCode, t.screen()).toBe(0);
  expect(t.screen()).toMatch(/reset to\s+before-tests/);
  expect(t.screen()).not.toContain('Remove everything');
});

it('Ctrl-C at the question exits 130 with nothing reset; --to empty --yes asks nothing', async () => {
  const t = onTerminal(['local', 'reset'], env);
  await t.when('Reset to', '\x03');
  const r = await t.proc;
  expect(r.exitCode).toBe(130);
  expect(t.screen()).toContain('Cancelled; nothing was changed.');
  expect(await threads()).toBe(5);

  const yes = onTerminal(['local', 'reset', '--to', 'empty', '--yes'], env);
  const done = await yes.proc;
  expect(done.exitCode, yes.screen()).toBe(0);
  expect(yes.screen()).not.toContain('Remove everything');
  expect(yes.screen()).toMatch(/reset to\s+empty/);
});
