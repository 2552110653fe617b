import { randomUUID } from 'node:crypto';
import { operations } from '../../contract/operations.js';
import type { OfferRecord, OrderRecord } from '../../store/records.js';
import { implement, txTimestamp, type Services } from '../../server/context.js';
import { LocalPaymentProvider } from '../../server/payments/local.js';
import { priceOrder } from '../../server/payments/pricing.js';
import { PaymentProviderError, type PaymentProvider } from '../../server/payments/provider.js';
import { ProblemError, notFound } from '../../server/problems.js';
import { cachedJson, pageRecords } from '../../server/paging.js';

const fallbackProvider = new LocalPaymentProvider();

/** `wcm serve` sets `services.payments`; an App built without it (tests) pays offline. */
export function paymentProvider(services: Services): PaymentProvider {
  return services.payments ?? fallbackProvider;
}

/** The public view of an order: what the buyer may see, no internal fields. */
export function orderView(o: OrderRecord) {
  return {
    id: o.id,
    offer_id: o.offer_id,
    payment_state: o.payment_state,
    quantity: o.quantity,
    amount_total: o.amount_total,
    currency: o.currency,
    application_fee_amount: o.application_fee_amount,
    payment_intent_id: o.payment_intent_id,
    customer_name: o.customer_name,
    customer_email: o.customer_email,
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
}

const summarizeOffer = cachedJson((r: OfferRecord) => ({
  id: r.id,
  kind: r.kind,
  title: r.title,
  currency: r.currency,
  unit_amount_minor: r.unit_amount_minor,
  active: r.active,
}));

export const commerceHandlers = [
  // Inactive offers too (the `active` column says so): an operator looks for them as well.
  implement(operations.listOffers, ({ params, query, db }) =>
    pageRecords(db, 'offersByWorkspace', params.workspace, {
      scope: `offers:${params.workspace}`,
      cursor: query.cursor,
      limit: query.limit,
      map: summarizeOffer,
    }),
  ),
  implement(operations.createPaymentIntent, async ({ params, body, db, services, idempotency }) => {
    const { offer, destination } = await db.read(async (tx) => {
      const offer = await tx.get('offers', params.offer);
      if (!offer || !offer.active) throw notFound('offer_not_found', params.offer);
      return { offer, destination: (await tx.get('workspaces', offer.workspace_id))?.stripe_account_id };
    });
    if (!destination) {
      throw new ProblemError('offer_not_found', {
        detail: `Offer \`${offer.id}\` cannot take payments: its workspace has not connected a payment account.`,
      });
    }
    const price = priceOrder(offer, body);
    const provider = paymentProvider(services);
    const orderId = randomUUID();
    // The intent first, the order after: if the processor fails nothing is stored, and the
    // processor's idempotency key (derived from the order id) makes its own retries safe.
    let intent;
    try {
      intent = await provider.createPaymentIntent({
        orderId,
        offerId: offer.id,
        workspaceId: offer.workspace_id,
        amount: price.total,
        currency: price.currency,
        applicationFeeAmount: price.applicationFee,
        destination,
        receiptEmail: body.customer_email,
      });
    } catch (err) {
      if (!(err instanceof PaymentProviderError)) throw err;
      throw new ProblemError('payment_provider_error', { detail: `${err.message} No order was created.` });
    }
    const paymentIntent = {
      id: intent.id,
      client_secret: intent.client_secret,
      status: intent.status,
      amount: intent.amount,
      currency: intent.currency,
      application_fee_amount: intent.application_fee_amount,
    };
    try {
      // The order and its idempotency record land together: after a crash, a retry with the same
      // key either replays this answer or starts afresh; it can never make a second order. If
      // another request with the same key recorded first, this write keeps nothing (ConflictError).
      return await db.write(async (tx) => {
        const now = await txTimestamp(tx);
        const order: OrderRecord = {
          id: orderId,
          workspace_id: offer.workspace_id,
          offer_id: offer.id,
          payment_state: 'pending',
          quantity: body.quantity,
          amount_total: price.total,
          currency: price.currency,
          application_fee_amount: price.applicationFee,
          payment_intent_id: intent.id,
          provider: provider.name,
          customer_name: body.customer_name ?? null,
          customer_email: body.customer_email ?? null,
          customer_message: body.customer_message ?? null,
          marketing_consent: body.marketing_consent ?? false,
          source_type: body.source_type ?? null,
          source_id: body.source_id ?? null,
          attribution: body.attribution ?? null,
          created_at: now,
          updated_at: now,
        };
        const data = { order: orderView(order), payment_intent: paymentIntent };
        await tx.create('orders', order);
        await idempotency?.record(tx, operations.createPaymentIntent.status, data);
        return data;
      });
    } catch (err) {
      // The order was not stored: withdraw the intent so nobody can pay for nothing.
      await provider.cancelPaymentIntent(intent.id).catch(() => undefined);
      throw err;
    }
  }),
];
