import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../support/cli.js';
import { demo, onPort, tempDir } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>>;
let secret: string;
const cfg = tempDir('wcm-cmd-public-');
beforeAll(async () => {
  server = await onPort({ rateLimit: 1000 });
  secret = server.app.services.webhookSecret as string;
});
afterAll(async () => {
  await server.close();
  cfg.cleanup();
});

const run = (args: string[], env: Record<string, string> = {}) =>
  runInProcess([...args, '--base-url', server.url], {
    env: { WCM_CONFIG_DIR: cfg.dir, WCM_MAX_RETRY_WAIT_MS: '0', ...env },
  });

describe('public commands: usage errors before any request', () => {
  it.each([
    [
      ['commerce', 'pay', demo.offerFixedUsd, '--amount', '12.50'],
      /`--amount` must be a whole number; received `12.50`/,
    ],
    [['commerce', 'pay', demo.offerFixedUsd, '--quantity', 'two'], /`--quantity` must be a whole number/],
    [
      ['commerce', 'pay', demo.offerFixedUsd, '--idempotency-key', 'short'],
      /`--idempotency-key` must be 8 to 120 visible ASCII characters; received 5/,
    ],
    [['agents', 'opened', demo.agent1, '--idempotency-key', 'has a space'], /`--idempotency-key` must be 8 to 120/],
    [
      ['payments', 'simulate', 'order-7', '--outcome', 'succeeded'],
      /ORDER must be an order id \(uuid\) or a payment intent id/,
    ],
    [['payments', 'simulate', '9c105461-cd2b-479f-a8a0-09aace5a70d7'], /Missing `--outcome`/],
  ])('%j → exit 2', async (args, message) => {
    const r = await run(args as string[], { WCM_WEBHOOK_SECRET: 'whsec_x' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('simulate without WCM_WEBHOOK_SECRET says where to get it', async () => {
    const r = await run(['payments', 'simulate', '9c105461-cd2b-479f-a8a0-09aace5a70d7', '--outcome', 'succeeded']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/WCM_WEBHOOK_SECRET is not set/);
    expect(r.stderr).toMatch(/`wcm serve` prints its signing secret/);
  });
});

describe('public commands against a real server', () => {
  it('pay needs no token, prints the key it generated on stderr, and --json prints only data on stdout', async () => {
    const r = await run(['commerce', 'pay', demo.offerFixedEur, '--json']);
    expect(r.code).toBe(0);
    const data = JSON.parse(r.stdout);
    expect(data.order).toMatchObject({ currency: 'eur', amount_total: 2900, payment_state: 'pending' });
    const key = /idempotency key: (\S+)/.exec(r.stderr)![1];
    const again = await run(['commerce', 'pay', demo.offerFixedEur, '--json', '--idempotency-key', key]);
    expect(JSON.parse(again.stdout)).toEqual(data);
    expect(again.stderr).toMatch(/replayed/);
  });

  it('a server refusal maps to the exit codes of docs/cli.md: 422 → 3, 404 → 5', async () => {
    const low = await run(['commerce', 'pay', demo.offerContributionUsd, '--amount', '999']);
    expect(low.code).toBe(3);
    expect(low.stderr).toMatch(/amount_minor/);
    expect(low.stderr).toMatch(/Pass `--amount N`/);
    const gone = await run(['commerce', 'pay', demo.offerInactive]);
    expect(gone.code).toBe(5);
    expect(gone.stderr).toMatch(/offer_not_found/);
  });

  it('simulate with the wrong secret is refused by the server (invalid_signature, exit 1)', async () => {
    const paid = JSON.parse((await run(['commerce', 'pay', demo.offerFixedUsd, '--json'])).stdout);
    const r = await run(
      ['payments', 'simulate', paid.order.id, '--outcome', 'succeeded', '--data', path.join(server.dir, 'store.json')],
      { WCM_WEBHOOK_SECRET: 'whsec_wrong_000000000000000000' },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/invalid_signature/);
    const ok = await run(
      ['payments', 'simulate', paid.order.id, '--outcome', 'canceled', '--data', path.join(server.dir, 'store.json')],
      { WCM_WEBHOOK_SECRET: secret },
    );
    expect(ok.code).toBe(0);
    expect(server.store.get('orders', paid.order.id)!.payment_state).toBe('canceled');
  });

  it('over the rate limit, a public command exits 6 with the rate_limited problem', async () => {
    const limited = await onPort({ rateLimit: 2 });
    try {
      const go = () =>
        runInProcess(['agents', 'opened', demo.agent1, '--base-url', limited.url], {
          env: { WCM_CONFIG_DIR: cfg.dir, WCM_MAX_RETRY_WAIT_MS: '0' },
        });
      const results = [await go(), await go(), await go()];
      expect(results.map((r) => r.code)).toEqual([0, 0, 6]);
      expect(results[2].stderr).toMatch(/429 rate_limited/);
      expect(limited.store.count('analytics_events')).toBe(2);
    } finally {
      await limited.close();
    }
  });

  it("local orders / local events read the server's file while it runs", async () => {
    const data = path.join(server.dir, 'store.json');
    expect((await run(['agents', 'opened', demo.agent1])).code).toBe(0);
    const orders = JSON.parse((await run(['local', 'orders', '--data', data, '--json'])).stdout);
    expect(orders.length).toBe(server.store.count('orders'));
    expect(orders.map((o: { created_at: string }) => o.created_at)).toEqual(
      [...orders.map((o: { created_at: string }) => o.created_at)].sort().reverse(),
    );
    const rows = (await run(['local', 'events', '--data', data])).stdout.trim().split('\n');
    expect(rows).toHaveLength(server.store.count('analytics_events'));
    expect(rows[0].split('\t')[1]).toBe('agent.chat_opened');
  });

  it('local orders without a data file says how to get one', async () => {
    const r = await run(['local', 'orders', '--data', path.join(cfg.dir, 'nope.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No data file at .*nope\.json/);
  });
});
