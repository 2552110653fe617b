import Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderState } from '../../../src/contract/enums.js';
import { SECRET, demo, payUrl, publicApp, type PublicApp } from '../../server/payments/harness.js';

let s: PublicApp;
beforeEach(async () => {
  s = await publicApp();
});
afterEach(async () => {
  await s.close();
});

const HOOK = '/v1/webhooks/payments';
let n = 0;

async function newOrder(): Promise<{ id: string; pi: string }> {
  const res = await s.request({ url: payUrl(demo.offerFixedUsd), key: `webhook-order-${++n}`, json: {} });
  return { id: res.json.data.order.id, pi: res.json.data.payment_intent.id };
}

async function setState(orderId: string, state: OrderState) {
  await s.db.write(async (tx) => tx.put('orders', { ...(await tx.get('orders', orderId))!, payment_state: state }));
}

const TYPES = {
  succeeded: 'payment_intent.succeeded',
  failed: 'payment_intent.payment_failed',
  canceled: 'payment_intent.canceled',
  refunded: 'charge.refunded',
} as const;

function event(type: string, order: { id?: string; pi: string }, extra: Record<string, unknown> = {}) {
  const metadata = order.id ? { order_id: order.id } : {};
  const object =
    type === 'charge.refunded'
      ? {
          id: `ch_${n}`,
          object: 'charge',
          payment_intent: order.pi,
          amount: 2500,
          amount_refunded: 2500,
          refunded: true,
          metadata,
          ...extra,
        }
      : { id: order.pi, object: 'payment_intent', amount: 2500, currency: 'usd', metadata, ...extra };
  return { id: `evt_test_${++n}`, object: 'event', type, created: 1, livemode: false, data: { object } };
}

/** Signs like Stripe: `t=<unix seconds>,v1=<HMAC-SHA256 of "t.body">`. */
function signed(payload: string, opts: { secret?: string; at?: number } = {}) {
  const timestamp = Math.floor((opts.at ?? s.clock.now().getTime()) / 1000);
  return Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SECRET, timestamp });
}

async function deliver(evt: unknown, opts: { secret?: string; at?: number; body?: string } = {}) {
  const payload = JSON.stringify(evt);
  return s.request({
    url: HOOK,
    body: opts.body ?? payload,
    headers: { 'content-type': 'application/json', 'stripe-signature': signed(payload, opts) },
  });
}

describe('the order state machine', () => {
  it.each([
    ['pending', 'succeeded', 'paid'],
    ['pending', 'failed', 'failed'],
    ['pending', 'canceled', 'canceled'],
    ['paid', 'refunded', 'refunded'],
  ] as const)('%s + %s → %s (applied)', async (from, outcome, to) => {
    const o = await newOrder();
    await setState(o.id, from);
    const res = await deliver(event(TYPES[outcome], o));
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ received: true, event_id: `evt_test_${n}`, applied: true });
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe(to);
    expect(await s.db.read((tx) => tx.get('payment_events', `evt_test_${n}`))).toMatchObject({
      order_id: o.id,
      applied: true,
    });
  });

  it.each([
    ['pending', 'refunded'],
    ['paid', 'failed'],
    ['paid', 'canceled'],
    ['paid', 'succeeded'],
    ['failed', 'succeeded'],
    ['failed', 'refunded'],
    ['canceled', 'succeeded'],
    ['canceled', 'failed'],
    ['refunded', 'succeeded'],
    ['refunded', 'failed'],
    ['refunded', 'canceled'],
    ['refunded', 'refunded'],
  ] as const)('%s + %s is not allowed: 200, applied false, the order unchanged', async (from, outcome) => {
    const o = await newOrder();
    await setState(o.id, from);
    const res = await deliver(event(TYPES[outcome], o));
    expect(res.status).toBe(200);
    expect(res.json.data.applied).toBe(false);
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe(from);
  });

  it('a late failure never un-pays an order', async () => {
    const o = await newOrder();
    await deliver(event(TYPES.succeeded, o));
    const late = await deliver(event(TYPES.failed, o));
    expect(late.json.data.applied).toBe(false);
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe('paid');
  });

  it('each event id is applied once: a redelivery is 200, applied false', async () => {
    const o = await newOrder();
    const evt = event(TYPES.succeeded, o);
    expect((await deliver(evt)).json.data.applied).toBe(true);
    await setState(o.id, 'pending');
    const again = await deliver(evt);
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual({ received: true, event_id: evt.id, applied: false });
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe('pending');
  });

  it("finds the order by payment intent id when metadata has no order id (a refund's charge)", async () => {
    const o = await newOrder();
    await deliver(event(TYPES.succeeded, { pi: o.pi }));
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe('paid');
    await deliver(event(TYPES.refunded, { pi: o.pi }));
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe('refunded');
  });

  it('a partial refund leaves the order paid', async () => {
    const o = await newOrder();
    await setState(o.id, 'paid');
    const res = await deliver(event(TYPES.refunded, o, { refunded: false, amount_refunded: 500 }));
    expect(res.json.data.applied).toBe(false);
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe('paid');
  });

  it.each(['payment_intent.created', 'charge.succeeded', 'customer.created', 'payment_intent.processing'])(
    'other event types (%s): 200, nothing changes, nothing kept',
    async (type) => {
      const o = await newOrder();
      const res = await deliver(event(type, o));
      expect(res.status).toBe(200);
      expect(res.json.data.applied).toBe(false);
      expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe('pending');
      expect(await s.db.read((tx) => tx.count('payment_events'))).toBe(0);
    },
  );

  it('an event for an order this server does not know: 200, applied false', async () => {
    const res = await deliver(event(TYPES.succeeded, { id: '00000000-0000-4000-8000-000000000000', pi: 'pi_unknown' }));
    expect(res.status).toBe(200);
    expect(res.json.data.applied).toBe(false);
  });
});

describe('signature verification', () => {
  it('a tampered body is 400 invalid_signature and changes nothing', async () => {
    const o = await newOrder();
    const evt = event(TYPES.succeeded, o);
    const tampered = JSON.stringify({ ...evt, data: { object: { ...evt.data.object, amount: 1 } } });
    const res = await deliver(evt, { body: tampered });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_signature');
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe('pending');
    expect(await s.db.read((tx) => tx.count('payment_events'))).toBe(0);
  });

  it('a wrong secret is 400 invalid_signature', async () => {
    const o = await newOrder();
    const res = await deliver(event(TYPES.succeeded, o), { secret: 'whsec_someone_else_000000000000000' });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_signature');
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe('pending');
  });

  it.each([
    [-301_000, 400],
    [-300_000, 200],
    [300_000, 200],
    [301_000, 400],
  ])('a timestamp %i ms from the server clock → %i (300 s tolerance)', async (offset, status) => {
    const o = await newOrder();
    const res = await deliver(event(TYPES.succeeded, o), { at: s.clock.now().getTime() + offset });
    expect(res.status).toBe(status);
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe(status === 200 ? 'paid' : 'pending');
    if (status === 400) expect(res.json.detail).toMatch(/300 seconds/);
  });

  it('a header with two timestamps is 400 invalid_signature, even when the last one is signed', async () => {
    // The `stripe` package checks the signature against the last `t=`: a decoy first `t=` of now beside
    // a signature made for an hour ahead must not slip past the future-time check.
    const o = await newOrder();
    const payload = JSON.stringify(event(TYPES.succeeded, o));
    const now = Math.floor(s.clock.now().getTime() / 1000);
    const ahead = signed(payload, { at: (now + 3600) * 1000 });
    for (const header of [
      `t=${now},${ahead}`,
      `${ahead},t=${now}`,
      `t=${now},t=${now},${signed(payload).split(',')[1]}`,
    ]) {
      const res = await s.request({
        url: HOOK,
        body: payload,
        headers: { 'content-type': 'application/json', 'stripe-signature': header },
      });
      expect(res.status, header).toBe(400);
      expect(res.json.code).toBe('invalid_signature');
      expect(res.json.detail).toMatch(/more than one timestamp/);
    }
    expect((await s.db.read((tx) => tx.get('orders', o.id)))!.payment_state).toBe('pending');
  });

  it.each([
    ['no header', undefined],
    ['garbage', 'nonsense'],
    ['no v1 signature', 't=1700000000'],
  ])('%s is 400 invalid_signature', async (_name, header) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (header) headers['stripe-signature'] = header;
    const res = await s.request({ url: HOOK, body: JSON.stringify(event(TYPES.succeeded, { pi: 'pi_x' })), headers });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_signature');
  });

  it('a correctly signed body that is not a Stripe event is refused', async () => {
    const payload = JSON.stringify({ hello: 'world' });
    const res = await s.request({
      url: HOOK,
      body: payload,
      headers: { 'content-type': 'application/json', 'stripe-signature': signed(payload) },
    });
    expect(res.status).toBe(422);
  });

  it('the generated signing secret is kept in the store and survives a restart', async () => {
    const t = await publicApp({ env: {} });
    try {
      const stored = (await t.db.read((tx) => tx.get('settings', 'webhook_signing_secret')))!.value as string;
      expect(stored).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
      await t.restart();
      expect((await t.db.read((tx) => tx.get('settings', 'webhook_signing_secret')))!.value).toBe(stored);
      expect(t.app.services.webhookSecret).toBe(stored);
    } finally {
      await t.close();
    }
  });
});
