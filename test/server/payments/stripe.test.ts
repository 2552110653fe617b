import { afterEach, describe, expect, it } from 'vitest';
import { StripePaymentProvider } from '../../../src/server/payments/stripe.js';
import { nodeFileLayer, type FileLayer } from '../../../src/store/json/files.js';
import { cardDeclined, paymentIntentCreated, stripeStub } from './stripe-stub.js';
import { SECRET, demo, payUrl, publicApp, type PublicApp } from './harness.js';
import { journalThrough } from '../../support/store.js';

let s: PublicApp | undefined;
let stub: Awaited<ReturnType<typeof stripeStub>> | undefined;
afterEach(async () => {
  await s?.close();
  await stub?.close();
  s = stub = undefined;
});

/** `wcm serve` with STRIPE_SECRET_KEY set, pointed at the stub. */
async function stripeApp(reply?: Parameters<typeof stripeStub>[0]) {
  stub = await stripeStub(reply);
  s = await publicApp({
    env: { STRIPE_SECRET_KEY: 'sk_test_stub_123', WCM_STRIPE_API_BASE: stub.url, WCM_WEBHOOK_SECRET: SECRET },
  });
  return { s, stub };
}

describe("the stripe provider, against a local server speaking Stripe's wire format", () => {
  it('creates a destination-charge PaymentIntent: form parameters and Idempotency-Key as Stripe receives them', async () => {
    const { s, stub } = await stripeApp();
    const res = await s.request({
      url: payUrl(demo.offerFixedUsd),
      key: 'stripe-key-0001',
      json: { quantity: 3, customer_email: 'ada@example.com' },
    });
    expect(res.status).toBe(201);
    expect(stub.received).toHaveLength(1);
    const req = stub.received[0];
    const orderId = res.json.data.order.id;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/v1/payment_intents');
    expect(req.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(req.headers.authorization).toBe('Bearer sk_test_stub_123');
    expect(req.headers['idempotency-key']).toBe(`wcm-order-${orderId}`);
    expect(req.form).toMatchObject({
      amount: '7500',
      currency: 'usd',
      application_fee_amount: '100',
      'transfer_data[destination]': 'acct_1DemoAcmeCoffee01',
      'metadata[order_id]': orderId,
      'metadata[offer_id]': demo.offerFixedUsd,
      receipt_email: 'ada@example.com',
    });
    expect(res.json.data.payment_intent).toEqual({
      id: 'pi_3StubIntent0000000000001',
      client_secret: 'pi_3StubIntent0000000000001_secret_StubSecret000000000000001',
      status: 'requires_payment_method',
      amount: 7500,
      currency: 'usd',
      application_fee_amount: 100,
    });
    expect(await s.db.read((tx) => tx.get('orders', orderId))).toMatchObject({
      provider: 'stripe',
      payment_intent_id: 'pi_3StubIntent0000000000001',
      payment_state: 'pending',
    });
  });

  it("the connected account is the offer's workspace's", async () => {
    const { s, stub } = await stripeApp();
    await s.request({ url: payUrl('050666f3-4378-4487-a66e-25837b939185'), key: 'stripe-key-0002', json: {} });
    expect(stub.received[0].form['transfer_data[destination]']).toBe('acct_1DemoBlueFern002');
    expect(stub.received[0].form.amount).toBe('15000');
  });

  it('a replayed request does not call Stripe again', async () => {
    const { s, stub } = await stripeApp();
    await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0003', json: {} });
    const again = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0003', json: {} });
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(stub.received).toHaveLength(1);
  });

  it('when Stripe fails transiently, the package retries with the same Idempotency-Key: one intent, one order', async () => {
    let calls = 0;
    const { s, stub } = await stripeApp((req) =>
      ++calls === 1
        ? {
            status: 500,
            body: { error: { type: 'api_error', message: 'Temporary failure' } },
            headers: { 'stripe-should-retry': 'true' },
          }
        : paymentIntentCreated(req),
    );
    const res = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0008', json: {} });
    expect(res.status).toBe(201);
    expect(stub.received).toHaveLength(2);
    expect(stub.received[1].headers['idempotency-key']).toBe(stub.received[0].headers['idempotency-key']);
    expect(stub.received[1].form).toEqual(stub.received[0].form);
    expect(await s.ordersMade()).toBe(1);
  });

  it('a Stripe card error (402) is a clear 502 payment_provider_error, with no order and no idempotency record', async () => {
    const { s, stub } = await stripeApp(() => cardDeclined);
    const res = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0004', json: {} });
    expect(res.status).toBe(502);
    expect(res.headers['Content-Type']).toMatch(/^application\/problem\+json/);
    expect(res.json.code).toBe('payment_provider_error');
    expect(res.json.detail).toContain('Your card was declined.');
    expect(res.json.detail).toContain('card_declined');
    expect(res.json.detail).toContain('No order was created.');
    expect(res.json.resolution).toMatch(/same Idempotency-Key/);
    expect(stub.received).toHaveLength(1);
    expect(await s.ordersMade()).toBe(0);
    expect(await s.db.read((tx) => tx.count('idempotency_keys'))).toBe(0);
  });

  it('after a provider error, a retry with the same key goes through', async () => {
    let fail = true;
    const { s } = await stripeApp((req) => (fail ? ((fail = false), cardDeclined) : paymentIntentCreated(req)));
    expect((await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0005', json: {} })).status).toBe(502);
    const ok = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0005', json: {} });
    expect(ok.status).toBe(201);
    expect(await s.ordersMade()).toBe(1);
  });

  it("rejected credentials are reported without echoing Stripe's text to the public caller", async () => {
    const { s } = await stripeApp(() => ({
      status: 401,
      body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided: sk_test_****_123' } },
    }));
    const res = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0006', json: {} });
    expect(res.status).toBe(502);
    expect(res.json.detail).toMatch(/credentials/);
    expect(res.json.detail).not.toContain('sk_test');
    expect(await s.ordersMade()).toBe(0);
  });

  it('an unreachable Stripe is a 502 that says so', async () => {
    const provider = new StripePaymentProvider({
      secretKey: 'sk_test_x',
      apiBase: 'http://127.0.0.1:9',
      maxNetworkRetries: 0,
      timeoutMs: 2000,
    });
    s = await publicApp({ services: { payments: provider } });
    const res = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0007', json: {} });
    expect(res.status).toBe(502);
    expect(res.json.detail).toMatch(/could not be reached/);
    expect(await s.ordersMade()).toBe(0);
  });

  it('--payments stripe without STRIPE_SECRET_KEY refuses to start, saying what to set', async () => {
    await expect(publicApp({ payments: 'stripe', env: {} })).rejects.toThrow(/STRIPE_SECRET_KEY/);
  });

  it('if the order cannot be stored (disk failure), the intent is canceled at Stripe and nothing is half-created', async () => {
    let failAppends = false;
    const files: FileLayer = {
      ...nodeFileLayer,
      // A failing write still takes its place (the layer's contract): zeros, then the error.
      // Only the order's write fails: the rate limit's bucket before it is a write of its own.
      openJournal: journalThrough(async (j, buf) => {
        if (!failAppends || !buf.includes('["orders",')) return j.writeDurable(buf);
        await j.writeDurable(Buffer.alloc(buf.length));
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
      }),
    };
    stub = await stripeStub((req) =>
      req.path.endsWith('/cancel')
        ? { status: 200, body: { id: 'pi_3StubIntent0000000000001', object: 'payment_intent', status: 'canceled' } }
        : paymentIntentCreated(req),
    );
    s = await publicApp({
      files,
      env: { STRIPE_SECRET_KEY: 'sk_test_stub_123', WCM_STRIPE_API_BASE: stub.url, WCM_WEBHOOK_SECRET: SECRET },
    });
    failAppends = true;
    const res = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0009', json: {} });
    expect(res.status).toBe(500);
    expect(res.json.code).toBe('internal_error');
    expect(stub.received.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/payment_intents',
      'POST /v1/payment_intents/pi_3StubIntent0000000000001/cancel',
    ]);
    expect(stub.received[1].form.cancellation_reason).toBe('abandoned');
    expect(await s.ordersMade()).toBe(0);
    expect(await s.db.read((tx) => tx.count('idempotency_keys'))).toBe(0);
    // Once the disk recovers, the same key creates the order.
    failAppends = false;
    const retry = await s.request({ url: payUrl(demo.offerFixedUsd), key: 'stripe-key-0009', json: {} });
    expect(retry.status).toBe(201);
    expect(await s.ordersMade()).toBe(1);
  });
});
