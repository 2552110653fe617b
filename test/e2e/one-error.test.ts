import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';

// Issue 37 item 15: one error per mistake. `--set nope=1` is an unknown member, not also "the body is empty".
const t = tempDir('wcm-one-error-');
const env = { WCM_CONFIG_DIR: path.join(t.dir, 'config') };
let server: Awaited<ReturnType<typeof spawnServe>>;
beforeAll(async () => {
  server = await spawnServe(['--data', path.join(t.dir, 'store.json'), '--seed', DEMO], { env });
});
afterAll(async () => {
  server.proc.kill('SIGTERM');
  await server.proc;
  t.cleanup();
});

it('pages update --set nope=1 reports the unknown member only', async () => {
  const r = await wcm(['pages', 'update', demo.pageAcme, '--set', 'nope=1', '--workspace', demo.ws1], { env });
  expect(r.exitCode).toBe(3);
  expect(r.stderr).toContain('nope: Unknown field');
  expect(r.stderr).not.toContain('The body is empty');
  expect(r.stderr).not.toContain('(body)');
});

it('an empty body is still refused as empty', async () => {
  const r = await wcm(['api', '-X', 'PATCH', `/workspaces/${demo.ws1}/pages/${demo.pageAcme}`, '--input', '-'], {
    env,
    input: '{}',
  });
  expect(r.exitCode).toBe(3);
  expect(r.stderr).toContain('The body is empty: send at least one member to change.');
});
