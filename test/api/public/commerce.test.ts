import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OfferRecord } from '../../../src/store/records.js';
import { demo, payUrl, publicApp, type PublicApp } from '../../server/payments/harness.js';

let s: PublicApp;
beforeEach(async () => {
  s = await publicApp();
});
afterEach(async () => {
  await s.close();
});

let n = 0;
const key = () => `commerce-key-${String(++n).padStart(6, '0')}`;

async function offer(
  kind: OfferRecord['kind'],
  currency: string,
  unit: number | null,
  extra: Partial<OfferRecord> = {},
): Promise<string> {
  const rec: OfferRecord = {
    id: randomUUID(),
    workspace_id: demo.ws1,
    kind,
    title: `${kind} ${currency} ${unit}`,
    currency,
    unit_amount_minor: unit,
    active: true,
    ...extra,
  };
  await s.db.write((tx) => tx.put('offers', rec));
  return rec.id;
}

const pay = (id: string, json: unknown) => s.request({ url: payUrl(id), key: key(), json });

describe('pricing: fixed offers charge unit price × quantity', () => {
  it.each([
    [999, 1, 422, 'amount_below_minimum'],
    [1000, 1, 201, 1000],
    [10_000_000, 1, 201, 10_000_000],
    [10_000_001, 1, 422, 'validation_failed'],
    [500, 2, 201, 1000],
    [333, 3, 422, 'amount_below_minimum'],
    [100_000, 100, 201, 10_000_000],
    [100_001, 100, 422, 'validation_failed'],
  ])('USD unit %i × %i → %i %s', async (unit, quantity, status, expected) => {
    const id = await offer('fixed', 'usd', unit);
    const res = await pay(id, { quantity });
    expect(res.status).toBe(status);
    if (status === 201) {
      expect(res.json.data.order.amount_total).toBe(expected);
      expect(res.json.data.payment_intent.amount).toBe(expected);
    } else {
      expect(res.json.code).toBe(expected);
      expect(await s.ordersMade()).toBe(0);
    }
  });

  it('ignores `amount_minor`: the visitor cannot set the price of a fixed offer', async () => {
    const res = await pay(demo.offerFixedUsd, { amount_minor: 1000, quantity: 2 });
    expect(res.status).toBe(201);
    expect(res.json.data.order.amount_total).toBe(5000);
  });

  it.each([
    [0, 422],
    [1, 201],
    [100, 201],
    [101, 422],
  ])('quantity %i → %i', async (quantity, status) => {
    const res = await pay(demo.offerFixedUsd, { quantity });
    expect(res.status).toBe(status);
    if (status === 201) expect(res.json.data.order.amount_total).toBe(2500 * quantity);
    else expect(res.json.errors).toHaveProperty('quantity');
  });

  it('a EUR offer has no USD minimum', async () => {
    const id = await offer('fixed', 'eur', 500);
    const res = await pay(id, {});
    expect(res.status).toBe(201);
    expect(res.json.data.order).toMatchObject({ amount_total: 500, currency: 'eur', application_fee_amount: 100 });
  });

  it('a total that would not even cover the application fee is refused in any currency', async () => {
    const id = await offer('fixed', 'eur', 100);
    const res = await pay(id, {});
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('amount_below_minimum');
  });
});

describe('pricing: contribution offers charge amount_minor × quantity', () => {
  it.each([
    [999, 1, 422, 'validation_failed'],
    [1000, 1, 201, 1000],
    [10_000_000, 1, 201, 10_000_000],
    [10_000_001, 1, 422, 'validation_failed'],
    [1000, 100, 201, 100_000],
    [1000, 0, 422, 'validation_failed'],
    [1000, 101, 422, 'validation_failed'],
    [5_000_000, 3, 422, 'validation_failed'],
  ])('amount_minor %i × %i → %i %s', async (amount, quantity, status, expected) => {
    const res = await pay(demo.offerContributionUsd, { amount_minor: amount, quantity });
    expect(res.status).toBe(status);
    if (status === 201) expect(res.json.data.order.amount_total).toBe(expected);
    else {
      expect(res.json.code).toBe(expected);
      expect(Object.keys(res.json.errors).length).toBeGreaterThan(0);
    }
  });

  it('`amount_minor` is required, and the 422 names it', async () => {
    const res = await pay(demo.offerContributionUsd, { quantity: 2 });
    expect(res.status).toBe(422);
    expect(res.json.code).toBe('validation_failed');
    expect(Object.keys(res.json.errors)).toEqual(['amount_minor']);
  });

  it('a EUR contribution of 1000 passes (the seed bound), with no USD rule', async () => {
    const id = await offer('contribution', 'eur', null);
    const res = await pay(id, { amount_minor: 1000 });
    expect(res.status).toBe(201);
    expect(res.json.data.order.currency).toBe('eur');
  });
});

describe('every field limit of the body', () => {
  it.each([
    ['customer_name', 'x'.repeat(255), 'x'.repeat(256)],
    ['customer_email', `${'a'.repeat(243)}@example.com`, `${'a'.repeat(244)}@example.com`],
    ['customer_email', 'ada@example.com', 'not-an-email'],
    ['customer_message', 'm'.repeat(2000), 'm'.repeat(2001)],
    ['source_id', 's'.repeat(191), 's'.repeat(192)],
    ['source_type', 'popup', 'billboard'],
    ['marketing_consent', true, 'yes'],
    ['attribution', { utm_source: 'newsletter' }, 'newsletter'],
    ['quantity', 1, 1.5],
    ['amount_minor', 1000, '1000'],
  ])('%s: %j passes, %j is 422 naming the field', async (field, good, bad) => {
    const ok = await pay(demo.offerFixedUsd, { [field]: good });
    expect(ok.status).toBe(201);
    const res = await pay(demo.offerFixedUsd, { [field]: bad });
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors)).toEqual([field]);
  });

  it.each(['direct', 'button', 'list', 'popup', 'page', 'post', 'booking'])(
    'source_type %s is accepted and stored',
    async (t) => {
      const res = await pay(demo.offerFixedUsd, { source_type: t, source_id: 'src-1' });
      expect(res.status).toBe(201);
      expect(await s.db.read((tx) => tx.get('orders', res.json.data.order.id))).toMatchObject({
        source_type: t,
        source_id: 'src-1',
      });
    },
  );

  it('an unknown member is refused and named', async () => {
    const res = await pay(demo.offerFixedUsd, { price: 1 });
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors)).toEqual(['price']);
  });
});

describe('offers that cannot be paid for', () => {
  it.each([
    ['unknown', '00000000-0000-4000-8000-000000000000'],
    ['inactive', demo.offerInactive],
    ['malformed', 'not-a-uuid'],
  ])('%s offer: 404 offer_not_found', async (_name, id) => {
    const res = await pay(id, {});
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('offer_not_found');
    expect(await s.ordersMade()).toBe(0);
  });

  it('an offer whose workspace has no connected account: 404 offer_not_found saying why', async () => {
    await s.db.write(async (tx) =>
      tx.put('workspaces', { ...(await tx.get('workspaces', demo.ws1))!, stripe_account_id: null }),
    );
    const res = await pay(demo.offerFixedUsd, {});
    expect(res.status).toBe(404);
    expect(res.json.detail).toMatch(/payment account/);
  });
});

describe('the created order and payment intent', () => {
  it('201 {order, payment_intent}; the order is stored pending with the intent and the 100 fee', async () => {
    const res = await pay(demo.offerFixedUsd, {
      quantity: 2,
      customer_name: 'Ada',
      customer_email: 'ada@example.com',
      customer_message: 'Gift',
      marketing_consent: true,
      source_type: 'page',
      attribution: { utm: 'x' },
    });
    expect(res.status).toBe(201);
    const { order, payment_intent: pi } = res.json.data;
    expect(Object.keys(res.json.data).sort()).toEqual(['order', 'payment_intent']);
    expect(Object.keys(pi).sort()).toEqual([
      'amount',
      'application_fee_amount',
      'client_secret',
      'currency',
      'id',
      'status',
    ]);
    expect(pi).toMatchObject({
      amount: 5000,
      currency: 'usd',
      application_fee_amount: 100,
      status: 'requires_payment_method',
    });
    expect(pi.id).toMatch(/^pi_[A-Za-z0-9]{24}$/);
    expect(pi.client_secret).toMatch(new RegExp(`^${pi.id}_secret_[A-Za-z0-9]{25}$`));
    expect(order).toMatchObject({
      offer_id: demo.offerFixedUsd,
      payment_state: 'pending',
      quantity: 2,
      amount_total: 5000,
      currency: 'usd',
      application_fee_amount: 100,
      payment_intent_id: pi.id,
      customer_name: 'Ada',
      customer_email: 'ada@example.com',
    });
    expect(await s.db.read((tx) => tx.get('orders', order.id))).toMatchObject({
      payment_state: 'pending',
      payment_intent_id: pi.id,
      provider: 'local',
      workspace_id: demo.ws1,
      customer_message: 'Gift',
      marketing_consent: true,
      source_type: 'page',
      attribution: { utm: 'x' },
    });
  });

  it('an empty body buys one unit of a fixed offer', async () => {
    const res = await s.request({ url: payUrl(demo.offerFixedUsd), key: key() });
    expect(res.status).toBe(201);
    expect(res.json.data.order).toMatchObject({ quantity: 1, amount_total: 2500 });
  });
});
