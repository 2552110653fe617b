// The control plane with the real binary: `wcm serve` saves the admin token in
// profile `local`, so `wcm local …` needs nothing else; a reset is all or nothing across kill -9.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, tempDir } from '../support/server.js';

/** How many threads fixtures/demo.json seeds (counted, so a demo record added keeps the check true). */
const DEMO_THREADS = (JSON.parse(readFileSync(DEMO, 'utf8')) as { threads: unknown[] }).threads.length;

it('serve saves the admin token (not printed when piped); wcm local reset works from the profile; after kill -9 the reset state is the state', async () => {
  const dir = tempDir('wcm-emu-e2e-');
  const data = path.join(dir.dir, 'store.json');
  const env = { WCM_CONFIG_DIR: dir.dir, WCM_KEYCHAIN: 'off' };
  let server = await spawnServe(['--data', data, '--seed', DEMO], { env });
  try {
    await new Promise((r) => setTimeout(r, 300));
    // Piped, the generated admin token is not printed, only saved in the profile (docs/security.md#control-plane-logs-and-files).
    const line = server.lines.find((l) => l.startsWith('control plane'))!;
    expect(line).toContain('saved in profile `local`');
    const profile = JSON.parse(readFileSync(path.join(dir.dir, 'config.json'), 'utf8')).profiles.local;
    const admin = profile.admin_token;
    expect(admin).toMatch(/^wcm_admin_/);
    expect(line).not.toContain(admin);

    expect((await wcm(['local', 'snapshot', 'save', 'clean'], { env })).exitCode).toBe(0);
    const reset = await wcm(['local', 'reset', '--to', 'empty', '--json'], { env });
    expect(reset.exitCode, reset.stderr).toBe(0);
    server.proc.kill('SIGKILL');
    await server.proc;

    // Restarted on the same file: still empty (the reset was durable before it answered).
    server = await spawnServe(['--data', data], { env: { ...env, WCM_ADMIN_TOKEN: admin } });
    const threads = await fetch(`${server.url}/workspaces/775050e9-98e8-4600-8d0f-afce4b67e137/threads`, {
      headers: { authorization: `Bearer ${profile.token}` },
    });
    expect(threads.status).toBe(401); // no tokens, no users: the store is empty
    const back = await wcm(['local', 'reset', '--to', 'clean', '--base-url', server.url, '--json'], {
      env: { ...env, WCM_ADMIN_TOKEN: admin },
    });
    expect(back.exitCode, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout).records.threads).toBe(DEMO_THREADS);
  } finally {
    server.proc.kill('SIGKILL');
    await server.proc;
    dir.cleanup();
  }
});
