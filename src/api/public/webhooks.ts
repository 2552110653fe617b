import { operations } from '../../contract/operations.js';
import { ConflictError } from '../../store/engine/interface.js';
import { implement } from '../../server/context.js';
import { applyPaymentEvent } from '../../server/payments/notifications.js';
import { verifyPaymentEvent } from '../../server/payments/webhook.js';
import { ProblemError } from '../../server/problems.js';
import { header } from '../../server/request.js';

export const webhookHandlers = [
  implement(operations.receivePaymentNotification, async ({ request, db, clock, services }) => {
    const secret = services.webhookSecret;
    if (!secret) {
      throw new ProblemError('invalid_signature', {
        detail: 'This server has no payment-notification signing secret configured (set WCM_WEBHOOK_SECRET).',
      });
    }
    const event = await verifyPaymentEvent(request.rawBody, header(request.headers, 'stripe-signature'), secret, clock);
    let outcome;
    try {
      outcome = await db.write((tx) => applyPaymentEvent(tx, event));
    } catch (err) {
      // The same event delivered twice at once: the other delivery recorded it first.
      if (!(err instanceof ConflictError && err.collection === 'payment_events' && err.id === event.id)) throw err;
      outcome = { applied: false };
    }
    return { received: true as const, event_id: event.id, applied: outcome.applied };
  }),
];
