import { randomBytes } from 'node:crypto';
import type { CreateIntentInput, PaymentProvider, ProviderIntent } from './provider.js';

const ALPHANUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomId(n: number): string {
  // Rejection sampling keeps every character equally likely.
  let s = '';
  while (s.length < n) for (const b of randomBytes(n)) if (b < 248 && s.length < n) s += ALPHANUM[b % 62];
  return s;
}

/**
 * The offline processor (the default): intents shaped like Stripe's (`pi_…`, `pi_…_secret_…`,
 * status `requires_payment_method`) with no network. Payment outcomes arrive as signed
 * notifications, e.g. from `wcm payments simulate`, exactly as they would from Stripe.
 */
export class LocalPaymentProvider implements PaymentProvider {
  readonly name = 'local' as const;
  private readonly byOrder = new Map<string, ProviderIntent>();

  async createPaymentIntent(input: CreateIntentInput): Promise<ProviderIntent> {
    // Same order, same intent: the local stand-in for Stripe's idempotency key.
    const seen = this.byOrder.get(input.orderId);
    if (seen) return seen;
    const id = `pi_3${randomId(23)}`;
    const intent: ProviderIntent = {
      id,
      client_secret: `${id}_secret_${randomId(25)}`,
      status: 'requires_payment_method',
      amount: input.amount,
      currency: input.currency,
      application_fee_amount: input.applicationFeeAmount,
    };
    this.byOrder.set(input.orderId, intent);
    if (this.byOrder.size > 10_000) this.byOrder.delete(this.byOrder.keys().next().value!);
    return intent;
  }

  async cancelPaymentIntent(id: string): Promise<void> {
    for (const [order, intent] of this.byOrder) if (intent.id === id) this.byOrder.delete(order);
  }
}
