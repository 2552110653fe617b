import { defineCommand } from '../../src/cli/command.js';
import { UsageError, apiErrorOf } from '../../src/cli/errors.js';
import { formatMoney, printFields, printJson } from '../../src/cli/output.js';
import {
  announceIdempotencyKey,
  givenFlags,
  idempotencyKeyOption,
  integerFlag,
  publicCall,
} from '../../src/cli/public-call.js';
import { SOURCE_TYPES } from '../../src/contract/enums.js';

interface PayOptions {
  amount?: string;
  quantity?: string;
  name?: string;
  email?: string;
  message?: string;
  sourceType?: string;
  sourceId?: string;
  idempotencyKey?: string;
}

export { formatMoney } from '../../src/cli/output.js';

export default defineCommand<PayOptions>({
  path: ['commerce', 'pay'],
  output: 'createPaymentIntent',
  summary: 'Create an order and card payment intent for an offer (public: no token needed)',
  description:
    'The server prices the order: a fixed offer charges its price × quantity, a contribution offer\n' +
    '`--amount` (minor units, e.g. 2500 = 25.00) × quantity. The Idempotency-Key used is printed on\n' +
    'stderr; run again with `--idempotency-key KEY` to replay the same request without a second order.',
  examples: [
    'wcm commerce pay 47bf2ba6-6986-4574-8021-b3f80bc333f3',
    'wcm commerce pay 47bf2ba6-6986-4574-8021-b3f80bc333f3 --amount 5000 --email ada@example.com --idempotency-key order-2026-0001',
  ],
  args: [{ name: 'OFFER', description: 'offer id (uuid)', required: true, pick: 'offer' }],
  options: [
    {
      flags: '--amount <minor>',
      description: 'contribution per unit in minor units (1000–10000000); ignored by fixed-price offers',
    },
    { flags: '--quantity <n>', description: 'quantity, 1–100 (default 1)' },
    { flags: '--name <name>', description: 'customer name (max 255)' },
    { flags: '--email <email>', description: 'customer email (max 255)' },
    { flags: '--message <text>', description: 'message to the seller (max 2000)' },
    { flags: '--source-type <type>', description: 'where the purchase started', choices: SOURCE_TYPES },
    { flags: '--source-id <id>', description: 'id of that source (max 191)' },
    idempotencyKeyOption,
  ],
  async run(opts, f) {
    const offer = opts.args[0];
    if (!offer)
      throw new UsageError('Missing OFFER.', 'Example: wcm commerce pay 47bf2ba6-6986-4574-8021-b3f80bc333f3');
    const body: Record<string, unknown> = {};
    if (opts.amount !== undefined) body.amount_minor = integerFlag('--amount', opts.amount);
    if (opts.quantity !== undefined) body.quantity = integerFlag('--quantity', opts.quantity);
    if (opts.name !== undefined) body.customer_name = opts.name;
    if (opts.email !== undefined) body.customer_email = opts.email;
    if (opts.message !== undefined) body.customer_message = opts.message;
    if (opts.sourceType !== undefined) body.source_type = opts.sourceType;
    if (opts.sourceId !== undefined) body.source_id = opts.sourceId;
    const key = announceIdempotencyKey(f, opts.idempotencyKey, [
      'wcm',
      'commerce',
      'pay',
      offer,
      ...givenFlags({
        '--amount': opts.amount,
        '--quantity': opts.quantity,
        '--name': opts.name,
        '--email': opts.email,
        '--message': opts.message,
        '--source-type': opts.sourceType,
        '--source-id': opts.sourceId,
      }),
    ]);
    const res = await publicCall(f, 'createPaymentIntent', { params: { offer }, body, idempotencyKey: key }).catch(
      (err) => {
        // The server names body fields; say which flag sets them.
        const api = apiErrorOf(err);
        if (api?.problem.errors?.amount_minor) {
          api.problem.resolution =
            'Pass `--amount N` in minor units, 1000 to 10000000 (e.g. `--amount 2500` for 25.00).';
        }
        throw err;
      },
    );
    const { order, payment_intent: pi } = res.body.data;
    if (f.globals.json) printJson(f.io.stdout, res.body.data);
    else {
      await printFields(f.io, [
        ['order', order.id],
        ['state', order.payment_state],
        ['total', formatMoney(order.amount_total, order.currency)],
        ['quantity', String(order.quantity)],
        ['fee', formatMoney(order.application_fee_amount, order.currency)],
        ['payment intent', pi.id],
        ['client secret', pi.client_secret],
        ['status', pi.status],
      ]);
    }
    return 0;
  },
});
