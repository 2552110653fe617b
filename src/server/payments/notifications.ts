import type { OrderState } from '../../contract/enums.js';
import type { WriteTx } from '../../store/engine/interface.js';
import type { OrderRecord } from '../../store/records.js';
import { txTimestamp } from '../context.js';
import type { PaymentEvent } from './webhook.js';

/** The order payment state machine: what each state may become. */
export const TRANSITIONS: Record<OrderState, readonly OrderState[]> = {
  pending: ['paid', 'failed', 'canceled'],
  paid: ['refunded'],
  failed: [],
  canceled: [],
  refunded: [],
};

/** The event types that move an order, and where to. */
export const EVENT_TARGET: Record<string, OrderState> = {
  'payment_intent.succeeded': 'paid',
  'payment_intent.payment_failed': 'failed',
  'payment_intent.canceled': 'canceled',
  'charge.refunded': 'refunded',
};

export interface NotificationOutcome {
  applied: boolean;
  orderId: string | null;
  /** Why nothing changed, for logs and tests. */
  reason?: 'duplicate' | 'ignored_type' | 'unknown_order' | 'not_allowed' | 'partial_refund';
}

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

/**
 * The order an event's object is about: the order its metadata names, else the order of its
 * payment intent. Read inside the notification's write, so the order is locked until it ends.
 */
async function eventOrder(tx: WriteTx, obj: Record<string, unknown>): Promise<OrderRecord | undefined> {
  const metadata = (obj.metadata ?? {}) as Record<string, unknown>;
  const byMeta = str(metadata.order_id);
  const named = byMeta ? await tx.get('orders', byMeta) : undefined;
  if (named) return named;
  // A charge names its intent in `payment_intent`; an intent event's object is the intent.
  const pi = obj.object === 'charge' || str(obj.payment_intent) ? str(obj.payment_intent) : str(obj.id);
  if (!pi) return undefined;
  const found = await tx.page('orders', 'ordersByPaymentIntent', { partition: pi, limit: 1 });
  return found.items[0] ? await tx.get('orders', found.items[0].id) : undefined;
}

/**
 * Applies one verified notification in one write, so two deliveries of the same event cannot
 * both apply: every event of a known type is recorded by id with a create (applied or not); of
 * two deliveries at once, the second's create fails and nothing of it is kept (ConflictError:
 * the caller answers as for a duplicate). Other types change nothing and are not kept.
 */
export async function applyPaymentEvent(tx: WriteTx, event: PaymentEvent): Promise<NotificationOutcome> {
  const seen = await tx.get('payment_events', event.id);
  if (seen) return { applied: false, orderId: seen.order_id, reason: 'duplicate' };
  const target = EVENT_TARGET[event.type];
  if (!target) return { applied: false, orderId: null, reason: 'ignored_type' };
  const obj = event.data.object;
  const order = await eventOrder(tx, obj);
  const now = await txTimestamp(tx);
  let outcome: NotificationOutcome;
  if (!order) outcome = { applied: false, orderId: null, reason: 'unknown_order' };
  else if (target === 'refunded' && obj.refunded === false) {
    // Only a full refund ends the order; a partial one leaves it paid.
    outcome = { applied: false, orderId: order.id, reason: 'partial_refund' };
  } else if (!TRANSITIONS[order.payment_state].includes(target))
    outcome = { applied: false, orderId: order.id, reason: 'not_allowed' };
  else {
    await tx.put('orders', { ...order, payment_state: target, updated_at: now });
    outcome = { applied: true, orderId: order.id };
  }
  await tx.create('payment_events', {
    id: event.id,
    type: event.type,
    order_id: outcome.orderId,
    applied: outcome.applied,
    received_at: now,
  });
  return outcome;
}
