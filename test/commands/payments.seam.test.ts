// `wcm payments simulate` through the run(options, factory) seam: the signed event it posts, where the
// secret comes from, and what is refused before any request. Against the real server: public.server.test.ts.
import Stripe from 'stripe';
import { afterEach, expect, it } from 'vitest';
import paymentsSimulate from '../../commands/payments/simulate.js';
import { CliError } from '../../src/cli/errors.js';
import type { Prompter } from '../../src/cli/io.js';
import { fakeIO } from '../support/cli.js';
import { record, seamHarness, type SeamHarness } from './harness.js';

const ORDER = '0b1e4f8a-5c2d-4e6f-9a7b-3c8d2e1f0a9b';
const SECRET = 'whsec_seam';
const receipt = record({ received: true, event_id: 'evt_1', applied: true });

let h: SeamHarness;
afterEach(() => h.close());
const withSecret = () => seamHarness(() => receipt, { env: { WCM_WEBHOOK_SECRET: SECRET, WCM_TOKEN: undefined } });
/** The event as Stripe's own library verifies it against `secret`. */
const verified = (n: number, secret: string) =>
  Stripe.webhooks.constructEvent(
    h.stub.requests[n].body,
    h.stub.requests[n].headers['stripe-signature'] as string,
    secret,
  ) as unknown as { type: string; data: { object: Record<string, unknown> } };

it('ORDER --outcome succeeded: a payment_intent.succeeded event for that order, signed with WCM_WEBHOOK_SECRET', async () => {
  h = await withSecret();
  expect(await h.run(paymentsSimulate, { args: [ORDER.toUpperCase()], outcome: 'succeeded' })).toBe(0);
  expect(h.request()).toEqual({ method: 'POST', path: '/webhooks/payments', query: {} });
  expect(h.stub.requests[0].headers.authorization).toBeUndefined();
  const event = verified(0, SECRET);
  expect(event.type).toBe('payment_intent.succeeded');
  expect(event.data.object).toMatchObject({
    object: 'payment_intent',
    status: 'succeeded',
    metadata: { order_id: ORDER },
  });
});

it.each([
  ['failed', 'payment_intent.payment_failed', 'payment_intent'],
  ['canceled', 'payment_intent.canceled', 'payment_intent'],
  ['refunded', 'charge.refunded', 'charge'],
])('pi_… --outcome %s: a %s event about that intent', async (outcome, type, object) => {
  h = await withSecret();
  await h.run(paymentsSimulate, { args: ['pi_3QdemoIntent0001'], outcome });
  const event = verified(0, SECRET);
  expect(event.type).toBe(type);
  expect(event.data.object.object).toBe(object);
  expect(event.data.object[object === 'charge' ? 'payment_intent' : 'id']).toBe('pi_3QdemoIntent0001');
});

it('--payment-intent names the intent of an order given by id', async () => {
  h = await withSecret();
  await h.run(paymentsSimulate, { args: [ORDER], outcome: 'failed', paymentIntent: 'pi_given' });
  expect(verified(0, SECRET).data.object).toMatchObject({ id: 'pi_given', metadata: { order_id: ORDER } });
});

it("without WCM_WEBHOOK_SECRET: the secret comes from the target's control plane, with the admin token", async () => {
  h = await seamHarness((req) => (req.url.startsWith('/_emulator/') ? record({ secret: 'whsec_local' }) : receipt), {
    env: { WCM_ADMIN_TOKEN: 'admin_seam' },
  });
  await h.run(paymentsSimulate, { args: [ORDER], outcome: 'canceled' });
  expect(h.request(0)).toEqual({ method: 'GET', path: '/_emulator/webhook-secret', query: {} });
  expect(h.stub.requests[0].headers.authorization).toBe('Bearer admin_seam');
  expect(verified(1, 'whsec_local').type).toBe('payment_intent.canceled');
});

it('refused before any request: no ORDER, no --outcome, an ORDER that is neither uuid nor pi_…', async () => {
  // No secret either: the command line is checked before the server is asked for one.
  h = await seamHarness(undefined, { env: { WCM_ADMIN_TOKEN: 'admin_seam' } });
  const refused = (opts: object) => h.refused(paymentsSimulate, opts);
  expect(await refused({ outcome: 'succeeded' })).toBe('Missing ORDER.');
  expect(await refused({ args: [ORDER] })).toBe('Missing `--outcome`.');
  expect(await refused({ args: ['order-42'], outcome: 'succeeded' })).toBe(
    'ORDER must be an order id (uuid) or a payment intent id (`pi_…`); received `order-42`.',
  );
});

it('no --outcome on a terminal: chosen from the four outcomes, then sent', async () => {
  let offered: string[] = [];
  const prompter: Partial<Prompter> = {
    select: ((o: Parameters<Prompter['select']>[0]) => (
      (offered = o.choices.map((c) => c.value)),
      Promise.resolve('refunded')
    )) as Prompter['select'],
  };
  h = await seamHarness(() => receipt, { env: { WCM_WEBHOOK_SECRET: SECRET }, io: fakeIO({ tty: true, prompter }) });
  expect(await h.run(paymentsSimulate, { args: [ORDER] })).toBe(0);
  expect(offered).toEqual(['succeeded', 'failed', 'canceled', 'refunded']);
  expect(verified(0, SECRET).type).toBe('charge.refunded');
});

it('a --data file that cannot be read: exit 1 naming it, and nothing is posted', async () => {
  h = await withSecret();
  const err = await h.run(paymentsSimulate, { args: [ORDER], outcome: 'succeeded', data: 'nope.json' }).catch((e) => e);
  expect(err).toBeInstanceOf(CliError);
  expect((err as CliError).exitCode).toBe(1);
  expect((err as Error).message).toMatch(/^Cannot read the data file .*nope\.json\.$/);
  expect(h.stub.requests).toHaveLength(0);
});
