import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN, spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';

// Issue 37 item 9: against the local server whose admin token the profile holds, `payments
// simulate` signs with that server's secret (no WCM_WEBHOOK_SECRET); the replay hint is a whole,
// pasteable command.
const t = tempDir('wcm-pay-local-');
const env = { WCM_CONFIG_DIR: path.join(t.dir, 'config'), WCM_WEBHOOK_SECRET: '' };
let server: Awaited<ReturnType<typeof spawnServe>>;
beforeAll(async () => {
  server = await spawnServe(['--data', path.join(t.dir, 'store.json'), '--seed', DEMO], { env, cwd: t.dir });
});
afterAll(async () => {
  server.proc.kill('SIGTERM');
  await server.proc;
  t.cleanup();
});

it('the replay hint, pasted into a shell, replays the same request', async () => {
  const pay = await wcm(
    ['commerce', 'pay', demo.offerContributionUsd, '--amount', '1500', '--name', "Ada O'Neil", '--json'],
    { env },
  );
  expect(pay.exitCode, pay.stderr).toBe(0);
  const replay = /\(to replay: (.+)\)$/m.exec(pay.stderr)![1];
  expect(replay).not.toContain('…');
  expect(replay).toMatch(
    new RegExp(
      `^wcm commerce pay ${demo.offerContributionUsd} --amount 1500 --name 'Ada O'\\\\''Neil' --idempotency-key [0-9a-f-]{36}$`,
    ),
  );
  const again = await execa('sh', ['-c', `wcm() { node '${BIN}' "$@"; }; ${replay} --json`], {
    env: { ...env, NO_COLOR: '1', CI: 'true' },
    reject: false,
  });
  expect(again.exitCode, again.stderr).toBe(0);
  expect(again.stderr).toContain('replayed');
  expect(JSON.parse(again.stdout).order.id).toBe(JSON.parse(pay.stdout).order.id);
});

it('simulates against the local server with no WCM_WEBHOOK_SECRET: the secret comes from its control plane', async () => {
  const pay = JSON.parse((await wcm(['commerce', 'pay', demo.offerFixedUsd, '--json'], { env })).stdout);
  const sim = await wcm(['payments', 'simulate', pay.order.id, '--outcome', 'succeeded', '--json'], { env });
  expect(sim.exitCode, sim.stderr).toBe(0);
  expect(JSON.parse(sim.stdout)).toMatchObject({ received: true, applied: true, type: 'payment_intent.succeeded' });

  // Without the admin token (no profile, a bare base URL), it says what to set.
  const bare = await wcm(['payments', 'simulate', pay.order.id, '--outcome', 'refunded'], {
    env: { WCM_CONFIG_DIR: path.join(t.dir, 'empty'), WCM_BASE_URL: server.url, WCM_WEBHOOK_SECRET: '' },
  });
  expect(bare.exitCode).toBe(2);
  expect(bare.stderr).toContain(
    "WCM_WEBHOOK_SECRET is not set, and the target's signing secret could not be fetched (No admin token for",
  );
  expect(bare.stderr).toContain('export the WCM_WEBHOOK_SECRET the server signs with');
});
