import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PaymentProvider, ProviderIntent } from '../../src/server/payments/provider.js';
import { LocalPaymentProvider } from '../../src/server/payments/local.js';
import { demo, openedUrl, payUrl, publicApp, type PublicApp } from './payments/harness.js';

let s: PublicApp;
afterEach(async () => {
  await s?.close();
});

const DAY = 24 * 60 * 60 * 1000;
/** Every idempotency record, oldest first. */
const keys = () =>
  s.db.read(
    async (tx) => (await tx.page('idempotency_keys', 'idempotencyByCreated', { partition: '*', limit: 1000 })).items,
  );
const body = { quantity: 2, customer_email: 'ada@example.com' };

describe('Idempotency-Key on public POSTs', () => {
  beforeEach(async () => {
    s = await publicApp();
  });

  it.each([
    ['missing', null, 400, 'idempotency_key_required'],
    ['empty', '', 400, 'idempotency_key_required'],
    ['7 characters', 'a'.repeat(7), 400, 'invalid_idempotency_key'],
    ['121 characters', 'a'.repeat(121), 400, 'invalid_idempotency_key'],
    ['a space inside', 'abcd efgh', 400, 'invalid_idempotency_key'],
    ['non-ASCII', 'clé-idempotence', 400, 'invalid_idempotency_key'],
    ['a tab', 'abcd\tefgh', 400, 'invalid_idempotency_key'],
  ])('a key %s is refused (the status and code of its row) and creates nothing', async (_name, key, status, code) => {
    for (const url of [payUrl(demo.offerFixedUsd), openedUrl(demo.agent1)]) {
      const res = await s.request({ url, key, json: {} });
      expect(res.status).toBe(status);
      expect(res.json.code).toBe(code);
    }
    expect(await s.ordersMade()).toBe(0);
    expect(await s.db.read((tx) => tx.count('analytics_events'))).toBe(0);
  });

  it.each([
    ['8 characters', 'a'.repeat(8)],
    ['120 characters', 'b'.repeat(120)],
    ['every visible ASCII symbol', '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'],
  ])('a key of %s is accepted', async (_name, key) => {
    const res = await s.request({ url: payUrl(demo.offerFixedUsd), key, json: {} });
    expect(res.status).toBe(201);
  });

  it('a replay returns the first response (status, body, request id) with Idempotent-Replayed and creates nothing', async () => {
    const first = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'order-key-0001', json: body });
    expect(first.status).toBe(201);
    expect(first.headers['Idempotent-Replayed']).toBeUndefined();
    // Same members in another order: the same request.
    const again = await s.request({
      url: payUrl(demo.offerFixedUsd),
      key: 'order-key-0001',
      body: '{"customer_email":"ada@example.com","quantity":2}',
      headers: { 'content-type': 'application/json' },
    });
    expect(again.status).toBe(201);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(again.headers['X-Request-Id']).toBe(first.json.meta.request_id);
    expect(await s.ordersMade()).toBe(1);
    expect(await s.db.read((tx) => tx.count('idempotency_keys'))).toBe(1);
  });

  it('the same key with a different body is 422 idempotency_key_reused and creates nothing', async () => {
    await s.request({ url: payUrl(demo.offerFixedUsd), key: 'order-key-0002', json: body });
    const res = await s.request({
      url: payUrl(demo.offerFixedUsd),
      key: 'order-key-0002',
      json: { ...body, quantity: 3 },
    });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('idempotency_key_reused');
    expect(await s.ordersMade()).toBe(1);
  });

  it('keys are scoped per operation and target: the same key on another offer or agent creates its own record', async () => {
    const key = 'shared-key-0001';
    const a = await s.request({ url: payUrl(demo.offerFixedUsd), key, json: {} });
    const b = await s.request({ url: payUrl(demo.offerFixedEur), key, json: {} });
    const c = await s.request({ url: openedUrl(demo.agent1), key, json: {} });
    const d = await s.request({ url: openedUrl(demo.agent3), key, json: {} });
    expect([a.status, b.status, c.status, d.status]).toEqual([201, 201, 201, 201]);
    expect(a.json.data.order.id).not.toBe(b.json.data.order.id);
    expect(await s.ordersMade()).toBe(2);
    expect(await s.db.read((tx) => tx.count('analytics_events'))).toBe(2);
  });

  it('/v1 and /api/v1 are the same target: the alias replays', async () => {
    const first = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'alias-key-0001', json: {} });
    const again = await s.request({ url: payUrl(demo.offerFixedUsd, '/api/v1'), key: 'alias-key-0001', json: {} });
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body).toBe(first.body);
  });

  it.each([
    ['a schema violation (422)', { quantity: 101 }, 422],
    ['a price below the minimum (422)', { amount_minor: 999 }, 422],
    ['a missing contribution amount (422)', {}, 422],
  ])('%s is not recorded, so a corrected retry with the same key creates the order', async (_name, bad, status) => {
    const url = payUrl(demo.offerContributionUsd);
    const res = await s.request({ url, key: 'fix-and-retry-01', json: bad });
    expect(res.status).toBe(status);
    expect(await s.db.read((tx) => tx.count('idempotency_keys'))).toBe(0);
    const fixed = await s.request({ url, key: 'fix-and-retry-01', json: { amount_minor: 1500 } });
    expect(fixed.status).toBe(201);
    expect(fixed.headers['Idempotent-Replayed']).toBeUndefined();
    expect(await s.ordersMade()).toBe(1);
  });

  it('an unknown offer (404) is not recorded either', async () => {
    const res = await s.request({
      url: payUrl('00000000-0000-4000-8000-000000000000'),
      key: 'unknown-offer-1',
      json: {},
    });
    expect(res.status).toBe(404);
    expect(await s.db.read((tx) => tx.count('idempotency_keys'))).toBe(0);
  });

  it('records expire after 24 h on the injected clock, and expired ones are pruned', async () => {
    // On PostgreSQL the store's time is the database's, set to the test clock before each request
    // and running on during it: the boundaries are checked to 10 s there, to the millisecond here.
    const margin = s.db.kind === 'postgres' ? 10_000 : 1;
    const first = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'expiring-key-01', json: {} });
    s.clock.advance(DAY - margin);
    const replay = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'expiring-key-01', json: {} });
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    s.clock.advance(margin === 1 ? 1 : 2 * margin);
    const fresh = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'expiring-key-01', json: {} });
    expect(fresh.status).toBe(201);
    expect(fresh.headers['Idempotent-Replayed']).toBeUndefined();
    expect(fresh.json.data.order.id).not.toBe(first.json.data.order.id);
    expect(await s.ordersMade()).toBe(2);
    // Another key's record, older than 24 h, is deleted from the store by the next request's prune.
    await s.request({ url: openedUrl(demo.agent1), key: 'old-record-0001', json: {} });
    expect(await s.db.read((tx) => tx.count('idempotency_keys'))).toBe(2);
    s.clock.advance(DAY + 60_000);
    await s.request({ url: openedUrl(demo.agent1), key: 'new-record-0001', json: {} });
    // The prune runs beside the request (on PostgreSQL it may commit just after the answer).
    await vi.waitFor(async () => expect(await keys()).toHaveLength(1));
    const [left] = await keys();
    const late = Date.parse(left.created_at) - s.clock.now().getTime();
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(margin === 1 ? 1 : 2000);
  });

  // docs/security.md#control-plane-logs-and-files: the key's scope is the caller, the operation and the canonical path.
  it.each([
    ['an upper-cased offer id', payUrl(demo.offerFixedUsd.toUpperCase())],
    ['a trailing slash', `${payUrl(demo.offerFixedUsd)}/`],
    ['the /api/v1 base path', payUrl(demo.offerFixedUsd, '/api/v1')],
  ])('the same key and body with %s replays the first order instead of creating a second', async (_name, url) => {
    const first = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'canonical-key-01', json: body });
    expect(first.status).toBe(201);
    const again = await s.request({ url, key: 'canonical-key-01', json: body });
    expect(again.status, again.body).toBe(201);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.json.data.order.id).toBe(first.json.data.order.id);
    expect(await s.ordersMade()).toBe(1);
  });

  it("another caller's key is not theirs to replay: another client address, or another token, runs for real", async () => {
    const first = await s.request({
      url: payUrl(demo.offerFixedUsd),
      key: 'caller-key-0001',
      json: body,
      remoteAddress: '10.0.0.1',
    });
    const sameCaller = await s.request({
      url: payUrl(demo.offerFixedUsd),
      key: 'caller-key-0001',
      json: body,
      remoteAddress: '10.0.0.1',
    });
    expect(sameCaller.headers['Idempotent-Replayed']).toBe('true');
    const other = await s.request({
      url: payUrl(demo.offerFixedUsd),
      key: 'caller-key-0001',
      json: body,
      remoteAddress: '10.0.0.2',
    });
    expect(other.status).toBe(201);
    expect(other.headers['Idempotent-Replayed']).toBeUndefined();
    expect(other.json.data.order.id).not.toBe(first.json.data.order.id);
    const withToken = await s.request({
      url: payUrl(demo.offerFixedUsd),
      key: 'caller-key-0001',
      json: body,
      remoteAddress: '10.0.0.1',
      token: demo.owner,
    });
    expect(withToken.headers['Idempotent-Replayed']).toBeUndefined();
    expect(await s.ordersMade()).toBe(3);
  });

  it('the raw key is not stored, only its hash', async () => {
    await s.request({ url: payUrl(demo.offerFixedUsd), key: 'secret-ish-key-42', json: {} });
    const [rec] = await keys();
    expect(JSON.stringify(rec)).not.toContain('secret-ish-key-42');
    expect(rec.key).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe('replay after a restart', () => {
  it('the record is in the store file: after closing and reopening, the same key replays and creates nothing', async () => {
    s = await publicApp();
    const first = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'restart-key-0001', json: body });
    const ev = await s.request({ url: openedUrl(demo.agent1), key: 'restart-key-0002', json: {} });
    await s.restart();
    const again = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'restart-key-0001', json: body });
    const evAgain = await s.request({ url: openedUrl(demo.agent1), key: 'restart-key-0002', json: {} });
    expect(again.status).toBe(201);
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(again.body).toBe(first.body);
    expect(evAgain.body).toBe(ev.body);
    expect(await s.ordersMade()).toBe(1);
    expect(await s.db.read((tx) => tx.count('analytics_events'))).toBe(1);
  });
});

/** A provider that holds every intent until released: requests stay in flight. */
class GatedProvider implements PaymentProvider {
  readonly name = 'local' as const;
  calls = 0;
  readonly created: string[] = [];
  readonly canceled: string[] = [];
  private readonly inner = new LocalPaymentProvider();
  private release!: () => void;
  readonly gate = new Promise<void>((r) => (this.release = r));
  async createPaymentIntent(input: Parameters<PaymentProvider['createPaymentIntent']>[0]): Promise<ProviderIntent> {
    this.calls++;
    await this.gate;
    const intent = await this.inner.createPaymentIntent(input);
    this.created.push(intent.id);
    return intent;
  }
  open() {
    this.release();
  }
  async cancelPaymentIntent(id: string): Promise<void> {
    this.canceled.push(id);
  }
}

/**
 * Requests with one key at the same moment all run; the first to record its answer wins and the
 * others keep nothing (their orders are not stored, their intents are withdrawn) and answer with
 * the winner's record, exactly as a retry after it would.
 */
describe('concurrent requests with one key', () => {
  it('while the first is in flight, the same key replays its answer once it lands; a different body is 422', async () => {
    const provider = new GatedProvider();
    s = await publicApp({ services: { payments: provider } });
    const first = s.request({ url: payUrl(demo.offerFixedUsd), key: 'inflight-key-001', json: body });
    await vi.waitFor(() => expect(provider.calls).toBe(1));
    const second = s.request({ url: payUrl(demo.offerFixedUsd), key: 'inflight-key-001', json: body });
    const third = s.request({ url: payUrl(demo.offerFixedUsd), key: 'inflight-key-001', json: { quantity: 5 } });
    // All three are running (each waits for its payment intent) before any can answer.
    await vi.waitFor(() => expect(provider.calls).toBe(3));
    provider.open();
    const res = await Promise.all([first, second, third]);
    const fresh = res.filter((r) => r.status === 201 && r.headers['Idempotent-Replayed'] === undefined);
    expect(fresh).toHaveLength(1);
    const winner = fresh[0];
    const sameBody = winner === res[2] ? [res[0], res[1]] : [res[0], res[1], res[2]].filter((r) => r !== winner);
    for (const r of sameBody) {
      if (winner === res[2] || r === res[2]) {
        // Another body than the winner's: the key was used for a different request.
        expect(r.status).toBe(422);
        expect(r.json.code).toBe('idempotency_key_reused');
      } else {
        expect(r.status).toBe(201);
        expect(r.headers['Idempotent-Replayed']).toBe('true');
        expect(r.body).toBe(winner.body);
      }
    }
    expect(await s.ordersMade()).toBe(1);
    // Every intent but the winner's was withdrawn: only the recorded order can be paid.
    const kept = winner.json.data.payment_intent.id;
    expect(provider.created).toHaveLength(3);
    expect(provider.canceled.sort()).toEqual(provider.created.filter((id) => id !== kept).sort());
    const after = await s.request({
      url: payUrl(demo.offerFixedUsd),
      key: 'inflight-key-001',
      json: winner === res[2] ? { quantity: 5 } : body,
    });
    expect(after.headers['Idempotent-Replayed']).toBe('true');
    expect(after.body).toBe(winner.body);
    expect(await s.ordersMade()).toBe(1);
  });

  it('50 concurrent requests with one key create exactly one order, and all 50 answer with it', async () => {
    const provider = new GatedProvider();
    s = await publicApp({ services: { payments: provider } });
    const all = Array.from({ length: 50 }, () =>
      s.request({ url: payUrl(demo.offerFixedUsd), key: 'burst-key-00001', json: body }),
    );
    await new Promise((r) => setTimeout(r, 20));
    provider.open();
    const res = await Promise.all(all);
    const created = res.filter((r) => r.headers['Idempotent-Replayed'] === undefined);
    expect(created).toHaveLength(1);
    expect(created[0].status).toBe(201);
    for (const r of res) {
      expect(r.status).toBe(201);
      expect(r.body).toBe(created[0].body);
    }
    expect(await s.ordersMade()).toBe(1);
    // One intent stays payable: the 49 others were withdrawn.
    const kept = created[0].json.data.payment_intent.id;
    expect(provider.canceled.sort()).toEqual(provider.created.filter((id) => id !== kept).sort());
    expect(provider.canceled).toHaveLength(provider.calls - 1);
    // Afterwards every retry replays that one order.
    const retries = await Promise.all(
      Array.from({ length: 10 }, () =>
        s.request({ url: payUrl(demo.offerFixedUsd), key: 'burst-key-00001', json: body }),
      ),
    );
    for (const r of retries) expect(r.body).toBe(created[0].body);
    expect(await s.ordersMade()).toBe(1);
  });

  it('50 concurrent requests with one key and the real (ungated) provider still create one order', async () => {
    s = await publicApp();
    const res = await Promise.all(
      Array.from({ length: 50 }, () =>
        s.request({ url: payUrl(demo.offerFixedUsd), key: 'burst-key-00002', json: body }),
      ),
    );
    const created = res.filter((r) => r.status === 201 && r.headers['Idempotent-Replayed'] !== 'true');
    expect(created).toHaveLength(1);
    for (const r of res) {
      expect(r.status).toBe(201);
      expect(r.body).toBe(created[0].body);
    }
    expect(await s.ordersMade()).toBe(1);
  });
});
