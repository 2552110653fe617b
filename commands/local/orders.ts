import { defineCommand } from '../../src/cli/command.js';
import { allOf, dataOption, openEngine } from '../../src/cli/local.js';
import { printJson, printRows } from '../../src/cli/output.js';

export default defineCommand<{ data?: string }>({
  path: ['local', 'orders'],
  output: [
    'id',
    'workspace_id',
    'offer_id',
    'payment_state',
    'quantity',
    'amount_total',
    'currency',
    'application_fee_amount',
    'payment_intent_id',
    'provider',
    'customer_name',
    'customer_email',
    'customer_message',
    'marketing_consent',
    'source_type',
    'source_id',
    'attribution',
    'created_at',
    'updated_at',
  ],
  summary: 'Orders a local server recorded, newest first, with their payment state',
  description:
    'Read-only: works while `wcm serve` runs on the file and shows every write it acknowledged.\n' +
    'Piped output is tab-separated: id, payment state, total, quantity, offer id, payment intent id, created_at.',
  examples: ['wcm local orders', 'wcm local orders --json | jq \'.[] | select(.payment_state == "paid")\''],
  options: [dataOption],
  async run(opts, f) {
    const db = await openEngine(f, { data: opts.data, readOnly: true });
    const orders = await allOf(db, 'orders', 'ordersByCreated').finally(() => db.close());
    if (f.globals.json) return printJson(f.io.stdout, orders);
    if (!orders.length && f.io.isStdoutTTY) f.io.stderr.write('no orders yet: try `wcm commerce pay OFFER`\n');
    await printRows(f.io, orders, [
      { header: 'ID', value: (o) => o.id },
      { header: 'STATE', value: (o) => o.payment_state },
      { header: 'TOTAL', value: (o) => `${(o.amount_total / 100).toFixed(2)} ${o.currency.toUpperCase()}` },
      { header: 'QTY', value: (o) => String(o.quantity) },
      { header: 'OFFER', value: (o) => o.offer_id },
      { header: 'PAYMENT INTENT', value: (o) => o.payment_intent_id },
      { header: 'CREATED', value: (o) => o.created_at },
    ]);
  },
});
