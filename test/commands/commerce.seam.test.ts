// `wcm commerce pay` through the run(options, factory) seam: flags become the public request's body and
// Idempotency-Key, bad ones are refused before any request. Against the real server: public.server.test.ts.
import { afterEach, beforeEach, expect, it } from 'vitest';
import commercePay from '../../commands/commerce/pay.js';
import { apiErrorOf } from '../../src/cli/errors.js';
import { problem } from '../client/stubs.js';
import { record, seamHarness, type SeamHarness } from './harness.js';

const OFFER = '47bf2ba6-6986-4574-8021-b3f80bc333f3';
const created = {
  order: {
    id: '0b1e4f8a-5c2d-4e6f-9a7b-3c8d2e1f0a9b',
    payment_state: 'pending',
    amount_total: 10000,
    currency: 'eur',
    quantity: 2,
    application_fee_amount: 300,
  },
  payment_intent: { id: 'pi_1', client_secret: 'pi_1_secret_x', status: 'requires_payment_method' },
};

let h: SeamHarness;
beforeEach(async () => {
  // A public command needs no token: none is set.
  h = await seamHarness(() => record(created), { env: { WCM_TOKEN: undefined } });
});
afterEach(() => h.close());
const refused = (opts: object) => h.refused(commercePay, opts);

it('every flag becomes its body member on POST /public/…/payment-intents, sent without a token', async () => {
  const code = await h.run(commercePay, {
    args: [OFFER],
    amount: '5000',
    quantity: '2',
    name: 'Ada',
    email: 'ada@example.com',
    message: 'Thanks',
    sourceType: 'page',
    sourceId: 'home',
    idempotencyKey: 'order-2026-0001',
  });
  expect(code).toBe(0);
  expect(h.request()).toEqual({
    method: 'POST',
    path: `/public/commerce/offers/${OFFER}/payment-intents`,
    query: {},
  });
  expect(h.body()).toEqual({
    amount_minor: 5000,
    quantity: 2,
    customer_name: 'Ada',
    customer_email: 'ada@example.com',
    customer_message: 'Thanks',
    source_type: 'page',
    source_id: 'home',
  });
  expect(h.stub.requests[0].headers['idempotency-key']).toBe('order-2026-0001');
  expect(h.stub.requests[0].headers.authorization).toBeUndefined();
  expect(h.io.err()).toBe('idempotency key: order-2026-0001\n');
  expect(h.io.out()).toContain('client secret\tpi_1_secret_x\n');
});

it('no flags: an empty body, and a generated key printed with the command that replays it', async () => {
  await h.run(commercePay, { args: [OFFER], email: 'a b@example.com' });
  const key = h.stub.requests[0].headers['idempotency-key'] as string;
  expect(key).toMatch(/^[0-9a-f-]{36}$/);
  expect(h.body()).toEqual({ customer_email: 'a b@example.com' });
  expect(h.io.err()).toBe(
    `idempotency key: ${key} (to replay: wcm commerce pay ${OFFER} --email 'a b@example.com' --idempotency-key ${key})\n`,
  );
});

it('refused before any request: no OFFER, a non-integer --amount or --quantity, a bad --idempotency-key', async () => {
  expect(await refused({})).toBe('Missing OFFER.');
  expect(await refused({ args: [OFFER], amount: '25.00' })).toBe(
    '`--amount` must be a whole number; received `25.00`.',
  );
  expect(await refused({ args: [OFFER], quantity: 'two' })).toBe(
    '`--quantity` must be a whole number; received `two`.',
  );
  expect(await refused({ args: [OFFER], idempotencyKey: 'short' })).toBe(
    '`--idempotency-key` must be 8 to 120 visible ASCII characters; received 5 characters.',
  );
});

it("the server's 422 on amount_minor says which flag sets it", async () => {
  await h.close();
  h = await seamHarness(() => ({
    status: 422,
    body: problem(422, 'validation_failed', { errors: { amount_minor: ['too small'] } }),
  }));
  const err = await h.run(commercePay, { args: [OFFER], amount: '10' }).catch((e: unknown) => e);
  expect(apiErrorOf(err)?.problem.resolution).toBe(
    'Pass `--amount N` in minor units, 1000 to 10000000 (e.g. `--amount 2500` for 25.00).',
  );
  expect(h.stub.requests).toHaveLength(1);
});
