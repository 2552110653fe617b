import { randomBytes } from 'node:crypto';
import { defineCommand } from '../../src/cli/command.js';
import { CliError, UsageError } from '../../src/cli/errors.js';
import type { Factory } from '../../src/cli/factory.js';
import { dataFileOf, openEngine } from '../../src/cli/local.js';
import { printFields, printJson } from '../../src/cli/output.js';

const OUTCOMES = ['succeeded', 'failed', 'canceled', 'refunded'] as const;
type Outcome = (typeof OUTCOMES)[number];

interface SimulateOptions {
  outcome?: string;
  paymentIntent?: string;
  data?: string;
}

const EVENT_TYPE: Record<Outcome, string> = {
  succeeded: 'payment_intent.succeeded',
  failed: 'payment_intent.payment_failed',
  canceled: 'payment_intent.canceled',
  refunded: 'charge.refunded',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const rid = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, '').slice(0, 24)}`;

interface Known {
  orderId?: string;
  paymentIntent?: string;
  amount?: number;
  currency?: string;
}

/** What a local data file knows about the order, so the event names its real intent and amount. */
async function fromDataFile(f: Factory, data: string | undefined, known: Known): Promise<Known> {
  const file = dataFileOf(f, data);
  const { promises: fs } = await import('node:fs');
  if (
    !data &&
    !(await fs.stat(file).then(
      () => true,
      () => false,
    ))
  )
    return known;
  let db;
  try {
    db = await openEngine(f, { data, readOnly: true });
  } catch {
    if (data)
      throw new CliError(
        `Cannot read the data file ${file}.`,
        1,
        'Pass the `--data FILE` the server runs on, or leave it out.',
      );
    return known;
  }
  const { orderId, paymentIntent } = known;
  const order = await db
    .read(async (tx) =>
      orderId
        ? tx.get('orders', orderId)
        : paymentIntent
          ? (await tx.page('orders', 'ordersByPaymentIntent', { partition: paymentIntent, limit: 1 })).items[0]
          : undefined,
    )
    .finally(() => db.close());
  if (!order) return known;
  return {
    orderId: order.id,
    paymentIntent: order.payment_intent_id,
    amount: order.amount_total,
    currency: order.currency,
  };
}

/**
 * The signing secret of a local server, from its control plane with the admin token the profile
 * holds (`wcm serve` saved both), so simulating against `wcm serve` needs no exported variable.
 */
async function localSecret(f: Factory): Promise<string> {
  const { controlRequest } = await import('../../src/cli/control.js');
  const reason = await controlRequest<{ secret: string }>(f, 'GET', '/webhook-secret').then(
    (r) => r.secret,
    (err: Error) => err,
  );
  if (typeof reason === 'string') return reason;
  throw new UsageError(
    `WCM_WEBHOOK_SECRET is not set, and the target's signing secret could not be fetched (${reason.message.replace(/\.$/, '')}).`,
    'Against `wcm serve`, use the profile it saved (it holds the admin token) or set WCM_ADMIN_TOKEN; else export the WCM_WEBHOOK_SECRET the server signs with (`wcm serve` prints its signing secret at start).',
  );
}

/** docs/cli.md#output-errors-and-exit-codes: a missing required input is asked for on a terminal, and a usage error otherwise. */
async function askOutcome(f: Factory): Promise<Outcome> {
  if (!f.io.canPrompt()) throw new UsageError('Missing `--outcome`.', `Use one of: ${OUTCOMES.join(', ')}.`);
  return (await f.io.prompter()).select({
    message: 'Outcome',
    choices: OUTCOMES.map((o) => ({ name: o, value: o, description: EVENT_TYPE[o] })),
  });
}

/** A Stripe-format event (`object: "event"`, API-shaped `data.object`) for the outcome. */
export function buildEvent(outcome: Outcome, k: Known, nowSeconds: number): Record<string, unknown> {
  const pi = k.paymentIntent ?? rid('pi');
  const amount = k.amount ?? 0;
  const currency = k.currency ?? 'usd';
  const metadata = k.orderId ? { order_id: k.orderId } : {};
  let object: Record<string, unknown>;
  if (outcome === 'refunded') {
    object = {
      id: rid('ch'),
      object: 'charge',
      amount,
      amount_captured: amount,
      amount_refunded: amount,
      currency,
      paid: true,
      captured: true,
      refunded: true,
      payment_intent: pi,
      status: 'succeeded',
      metadata,
    };
  } else {
    const status = { succeeded: 'succeeded', failed: 'requires_payment_method', canceled: 'canceled' }[outcome];
    object = {
      id: pi,
      object: 'payment_intent',
      amount,
      amount_received: outcome === 'succeeded' ? amount : 0,
      currency,
      status,
      metadata,
      ...(outcome === 'failed'
        ? {
            last_payment_error: {
              type: 'card_error',
              code: 'card_declined',
              decline_code: 'generic_decline',
              message: 'Your card was declined.',
            },
          }
        : {}),
      ...(outcome === 'canceled' ? { cancellation_reason: 'requested_by_customer', canceled_at: nowSeconds } : {}),
    };
  }
  return {
    id: rid('evt'),
    object: 'event',
    api_version: '2025-10-29.clover',
    created: nowSeconds,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: EVENT_TYPE[outcome],
    data: { object },
  };
}

export default defineCommand<SimulateOptions>({
  path: ['payments', 'simulate'],
  summary: 'Send a signed payment notification for an order, as the processor would',
  description:
    'Builds a Stripe-format event, signs it exactly as Stripe signs (`Stripe-Signature: t=…,v1=…`)\n' +
    'with WCM_WEBHOOK_SECRET, else with the secret of the local server the profile points at (fetched\n' +
    'through its control plane with the saved admin token), and posts it to POST /webhooks/payments of\n' +
    'the target, so the whole payment flow runs offline. ORDER is an order id or a payment intent id (`pi_…`).',
  examples: [
    'wcm payments simulate 0b1e4f8a-5c2d-4e6f-9a7b-3c8d2e1f0a9b --outcome succeeded',
    'WCM_WEBHOOK_SECRET="$SECRET" wcm payments simulate pi_3QdemoIntent0001 --outcome refunded --base-url https://staging.example.com/v1',
  ],
  args: [{ name: 'order', description: 'order id (uuid) or payment intent id (pi_…)', required: true }],
  options: [
    { flags: '--outcome <outcome>', description: 'what happened to the payment', choices: OUTCOMES },
    { flags: '--payment-intent <id>', description: "the order's payment intent id, when the data file is not at hand" },
    {
      flags: '--data <file>',
      description: "local data file to read the order's intent and amount from (default .wcm/store.json when present)",
    },
  ],
  async run(opts, f) {
    const target = opts.args[0];
    if (!target) throw new UsageError('Missing ORDER.', 'Example: wcm payments simulate ORDER_ID --outcome succeeded');
    const outcome = (opts.outcome ?? (await askOutcome(f))) as Outcome;
    let known: Known;
    if (UUID.test(target)) known = { orderId: target.toLowerCase() };
    else if (target.startsWith('pi_')) known = { paymentIntent: target };
    else
      throw new UsageError(
        `ORDER must be an order id (uuid) or a payment intent id (\`pi_…\`); received \`${target}\`.`,
      );
    // After the checks of the command line: without WCM_WEBHOOK_SECRET this asks the server.
    const secret = f.env.WCM_WEBHOOK_SECRET || (await localSecret(f));
    if (opts.paymentIntent) known.paymentIntent = opts.paymentIntent;
    known = await fromDataFile(f, opts.data, known);

    const event = buildEvent(outcome, known, Math.floor(Date.now() / 1000));
    const payload = JSON.stringify(event);
    const { default: Stripe } = await import('stripe');
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
    const client = await f.client({ requireToken: false });
    const res = await client.request<{ data: { received: boolean; event_id: string; applied: boolean } }>({
      method: 'POST',
      path: '/webhooks/payments',
      body: event,
      headers: { 'stripe-signature': signature },
      anonymous: true,
    });
    const receipt = res.body.data;
    if (f.globals.json)
      printJson(f.io.stdout, {
        ...receipt,
        type: event.type,
        order_id: known.orderId ?? null,
        payment_intent: (event.data as { object: { id: string } }).object.id,
      });
    else {
      await printFields(f.io, [
        ['event', receipt.event_id],
        ['type', String(event.type)],
        ['order', known.orderId ?? '(found by payment intent)'],
        [
          'applied',
          receipt.applied ? 'yes' : "no (already applied, unknown order, or the order's state does not allow it)",
        ],
      ]);
    }
    return 0;
  },
});
