import { operations } from '../../contract/operations.js';
import { implement, timestamp } from '../context.js';
import { applyPaymentEvent, eventOrderId, paymentEventReads } from '../payments/notifications.js';
import { verifyPaymentEvent } from '../payments/webhook.js';
import { ProblemError } from '../problems.js';
import { header } from '../request.js';

export const webhookHandlers = [
  implement(operations.receivePaymentNotification, async ({ request, store, clock, services }) => {
    const secret = services.webhookSecret;
    if (!secret) {
      throw new ProblemError('invalid_signature', {
        detail: 'This server has no payment-notification signing secret configured (set WCM_WEBHOOK_SECRET).',
      });
    }
    const event = await verifyPaymentEvent(request.rawBody, header(request.headers, 'stripe-signature'), secret, clock);
    const now = timestamp(clock);
    const orderId = await eventOrderId(store.records, event.data.object);
    const outcome = await store.transact(
      (tx) => applyPaymentEvent(tx, event, now, orderId),
      paymentEventReads(event, orderId),
    );
    return { received: true as const, event_id: event.id, applied: outcome.applied };
  }),
];
