import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServe, wcm } from '../support/cli.js';
import { DEMO, demo, tempDir } from '../support/server.js';

const SECRET = 'whsec_e2e_0123456789abcdefghijklmnopqrstu';
/** The orders fixtures/demo.json holds, newest first (`wcm local orders` lists them after new ones). */
const DEMO_ORDERS = (
  (
    JSON.parse(readFileSync(DEMO, 'utf8')) as {
      orders?: Array<{ id: string; payment_state: string; created_at: string }>;
    }
  ).orders ?? []
).sort((a, b) => b.created_at.localeCompare(a.created_at));

describe('wcm commerce pay → wcm payments simulate → wcm local orders (the real binary and server)', () => {
  const t = tempDir('wcm-e2e-pay-');
  const data = path.join(t.dir, 'store.json');
  const env = { WCM_CONFIG_DIR: path.join(t.dir, 'config'), WCM_WEBHOOK_SECRET: SECRET, WCM_MAX_RETRY_WAIT_MS: '0' };
  let server: Awaited<ReturnType<typeof spawnServe>>;
  const cli = (args: string[], extra: Record<string, string> = {}) =>
    wcm([...args, '--base-url', server.url], { env: { ...env, ...extra }, cwd: t.dir });

  beforeAll(async () => {
    server = await spawnServe(['--data', data, '--seed', DEMO], { env, cwd: t.dir });
  });
  afterAll(async () => {
    server.proc.kill('SIGTERM');
    await server.proc;
    t.cleanup();
  });

  it(
    'pays, is notified as a processor would, and the local data file shows the order paid',
    { timeout: 120_000 },
    async () => {
      const pay = await cli([
        'commerce',
        'pay',
        demo.offerFixedUsd,
        '--quantity',
        '2',
        '--email',
        'ada@example.com',
        '--source-type',
        'page',
        '--json',
      ]);
      expect(pay.exitCode).toBe(0);
      const created = JSON.parse(pay.stdout);
      expect(created.order).toMatchObject({
        payment_state: 'pending',
        amount_total: 5000,
        currency: 'usd',
        application_fee_amount: 100,
      });
      expect(pay.stderr).toMatch(/^idempotency key: [0-9a-f-]{36} \(to replay: /m);

      const before = JSON.parse((await wcm(['local', 'orders', '--data', data, '--json'])).stdout);
      // Newest first: the new order, then the demo's own (fixtures/demo.json has one, paid).
      expect(before.map((o: { id: string; payment_state: string }) => [o.id, o.payment_state])).toEqual([
        [created.order.id, 'pending'],
        ...DEMO_ORDERS.map((o) => [o.id, o.payment_state]),
      ]);

      const sim = await cli([
        'payments',
        'simulate',
        created.order.id,
        '--outcome',
        'succeeded',
        '--data',
        data,
        '--json',
      ]);
      expect(sim.exitCode).toBe(0);
      expect(JSON.parse(sim.stdout)).toMatchObject({
        received: true,
        applied: true,
        type: 'payment_intent.succeeded',
        payment_intent: created.payment_intent.id,
      });

      const orders = await wcm(['local', 'orders', '--data', data]);
      expect(orders.exitCode).toBe(0);
      expect(orders.stdout.trim().split('\t').slice(0, 3)).toEqual([created.order.id, 'paid', '50.00 USD']);

      // By payment intent id too, and refused transitions say applied no.
      const refund = await cli(['payments', 'simulate', created.payment_intent.id, '--outcome', 'refunded']);
      expect(refund.exitCode).toBe(0);
      expect(refund.stdout).toMatch(/^applied\tyes$/m);
      const late = await cli(['payments', 'simulate', created.order.id, '--outcome', 'failed']);
      expect(late.stdout).toMatch(/^applied\tno/m);
      const final = JSON.parse((await wcm(['local', 'orders', '--data', data, '--json'])).stdout);
      expect(final[0].payment_state).toBe('refunded');
    },
  );

  it(
    '--idempotency-key replays the first response and says so; nothing new is created',
    { timeout: 60_000 },
    async () => {
      const args = [
        'commerce',
        'pay',
        demo.offerContributionUsd,
        '--amount',
        '1500',
        '--idempotency-key',
        'e2e-order-key-0001',
        '--json',
      ];
      const first = await cli(args);
      const again = await cli(args);
      expect(first.exitCode).toBe(0);
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toBe(first.stdout);
      expect(again.stderr).toMatch(/replayed/);
      const orders = JSON.parse((await wcm(['local', 'orders', '--data', data, '--json'])).stdout);
      expect(orders.filter((o: { offer_id: string }) => o.offer_id === demo.offerContributionUsd)).toHaveLength(1);
    },
  );

  it('agents opened records one privacy-safe event, listed by wcm local events', { timeout: 60_000 }, async () => {
    const button = '3f2d7c1e-9a4b-4c8d-8e6f-1a2b3c4d5e6f';
    const res = await cli(['agents', 'opened', demo.agent1, '--button', button, '--json']);
    expect(res.exitCode).toBe(0);
    const evt = JSON.parse(res.stdout);
    expect(evt).toMatchObject({ type: 'agent.chat_opened', agent_id: demo.agent1, button_id: button, app_id: null });
    const events = JSON.parse((await wcm(['local', 'events', '--data', data, '--json'])).stdout);
    expect(events.map((e: { id: string }) => e.id)).toEqual([evt.id]);
    const unknown = await cli(['agents', 'opened', '00000000-0000-4000-8000-000000000000']);
    expect(unknown.exitCode).toBe(5);
    expect(unknown.stderr).toMatch(/agent_not_found/);
  });
});

describe('wcm serve and the signing secret', () => {
  // Piped, the generated secret is not printed but saved in profile `local` (docs/security.md#control-plane-logs-and-files).
  it(
    'without WCM_WEBHOOK_SECRET, serve generates one, saves it in the profile, and keeps it across restarts',
    { timeout: 60_000 },
    async () => {
      const t = tempDir('wcm-e2e-secret-');
      try {
        const env = { WCM_CONFIG_DIR: path.join(t.dir, 'config'), WCM_WEBHOOK_SECRET: undefined };
        const args = ['--data', path.join(t.dir, 'store.json'), '--seed', DEMO];
        const announced = (lines: string[]) => lines.some((l) => l.startsWith('payment notifications'));
        const secretOf = () =>
          JSON.parse(readFileSync(path.join(t.dir, 'config', 'config.json'), 'utf8')).profiles.local
            .webhook_secret as string;
        const waitFor = async (s: Awaited<ReturnType<typeof spawnServe>>) => {
          for (let i = 0; i < 50 && !announced(s.lines); i++) await new Promise((r) => setTimeout(r, 50));
        };
        const first = await spawnServe(args, { env, cwd: t.dir });
        await waitFor(first);
        first.proc.kill('SIGTERM');
        await first.proc;
        const secret = secretOf();
        expect(secret).toMatch(/^whsec_/);
        expect(first.lines.join('\n')).not.toContain(secret);
        const second = await spawnServe(args, { env, cwd: t.dir });
        await waitFor(second);
        second.proc.kill('SIGTERM');
        await second.proc;
        expect(secretOf()).toBe(secret);
        expect(second.lines.join('\n')).toContain('signing secret kept in the store, not printed');
      } finally {
        t.cleanup();
      }
    },
  );
});
