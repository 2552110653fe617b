import type { OrderState } from '../../contract/enums.js';
import type { RecordRepository, TxReads } from '../../store/record-repository.js';
import type { Tx } from '../../store/store.js';
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
 * The id of the order an event's object is about, read before the transaction (which names it in
 * its reads): the order its metadata names, else the order of its payment intent.
 */
export async function eventOrderId(
  records: RecordRepository,
  obj: Record<string, unknown>,
): Promise<string | undefined> {
  const metadata = (obj.metadata ?? {}) as Record<string, unknown>;
  const byMeta = str(metadata.order_id);
  if (byMeta && (await records.get('orders', byMeta))) return byMeta;
  // A charge names its intent in `payment_intent`; an intent event's object is the intent.
  const pi = obj.object === 'charge' || str(obj.payment_intent) ? str(obj.payment_intent) : str(obj.id);
  if (!pi) return undefined;
  const found = await records.page('ordersByCreated', '*', { limit: 1, filter: (o) => o.payment_intent_id === pi });
  return found.items[0]?.id;
}

/**
 * Applies one verified notification inside a transaction: synchronous, so two deliveries of the
 * same event cannot both apply. Every event of a known type is recorded by id (applied or not);
 * other types change nothing and are not kept.
 */
export function applyPaymentEvent(
  tx: Tx,
  event: PaymentEvent,
  now: string,
  orderId: string | undefined,
): NotificationOutcome {
  const seen = tx.get('payment_events', event.id);
  if (seen) return { applied: false, orderId: seen.order_id, reason: 'duplicate' };
  const target = EVENT_TARGET[event.type];
  if (!target) return { applied: false, orderId: null, reason: 'ignored_type' };
  const obj = event.data.object;
  const order = orderId ? tx.get('orders', orderId) : undefined;
  let outcome: NotificationOutcome;
  if (!order) outcome = { applied: false, orderId: null, reason: 'unknown_order' };
  else if (target === 'refunded' && obj.refunded === false) {
    // Only a full refund ends the order; a partial one leaves it paid.
    outcome = { applied: false, orderId: order.id, reason: 'partial_refund' };
  } else if (!TRANSITIONS[order.payment_state].includes(target))
    outcome = { applied: false, orderId: order.id, reason: 'not_allowed' };
  else {
    tx.put('orders', { ...order, payment_state: target, updated_at: now });
    outcome = { applied: true, orderId: order.id };
  }
  tx.put('payment_events', {
    id: event.id,
    type: event.type,
    order_id: outcome.orderId,
    applied: outcome.applied,
    received_at: now,
  });
  return outcome;
}

/** What applyPaymentEvent reads: the event's record (a duplicate?) and its order. */
export const paymentEventReads = (event: PaymentEvent, orderId: string | undefined): TxReads =>
  orderId
    ? [
        ['payment_events', event.id],
        ['orders', orderId],
      ]
    : [['payment_events', event.id]];
