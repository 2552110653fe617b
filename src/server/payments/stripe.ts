import type { CreateIntentInput, PaymentProvider, ProviderIntent } from './provider.js';
import { PaymentProviderError, providerIdempotencyKey } from './provider.js';

export interface StripeProviderOptions {
  secretKey: string;
  /** Another API host speaking Stripe's wire format (stripe-mock, a test stub): `http://127.0.0.1:12111`. */
  apiBase?: string;
  timeoutMs?: number;
  maxNetworkRetries?: number;
}

type StripeClient = import('stripe').default;

/**
 * Card payments through Stripe Connect: a destination charge to the workspace's connected account
 * with the platform's application fee. The `stripe` package is imported on first use only.
 */
export class StripePaymentProvider implements PaymentProvider {
  readonly name = 'stripe' as const;
  private client: Promise<StripeClient> | null = null;

  constructor(private readonly options: StripeProviderOptions) {
    if (!options.secretKey) throw new Error('The stripe payment provider needs STRIPE_SECRET_KEY.');
  }

  private stripe(): Promise<StripeClient> {
    return (this.client ??= import('stripe').then(({ default: Stripe }) => {
      const base = this.options.apiBase ? new URL(this.options.apiBase) : null;
      return new Stripe(this.options.secretKey, {
        timeout: this.options.timeoutMs ?? 20_000,
        // Retries reuse the idempotency key, so Stripe never creates two intents for one order.
        maxNetworkRetries: this.options.maxNetworkRetries ?? 2,
        appInfo: { name: 'wcm' },
        ...(base
          ? {
              host: base.hostname,
              port: Number(base.port || (base.protocol === 'https:' ? 443 : 80)),
              protocol: base.protocol.replace(':', '') as 'http' | 'https',
            }
          : {}),
      });
    }));
  }

  async createPaymentIntent(input: CreateIntentInput): Promise<ProviderIntent> {
    const stripe = await this.stripe();
    try {
      const pi = await stripe.paymentIntents.create(
        {
          amount: input.amount,
          currency: input.currency,
          application_fee_amount: input.applicationFeeAmount,
          transfer_data: { destination: input.destination },
          automatic_payment_methods: { enabled: true },
          ...(input.receiptEmail ? { receipt_email: input.receiptEmail } : {}),
          metadata: { order_id: input.orderId, offer_id: input.offerId, workspace_id: input.workspaceId },
        },
        { idempotencyKey: providerIdempotencyKey(input.orderId) },
      );
      if (!pi.client_secret)
        throw new PaymentProviderError('Stripe returned a payment intent without a client secret.');
      return {
        id: pi.id,
        client_secret: pi.client_secret,
        status: pi.status,
        amount: pi.amount,
        currency: pi.currency,
        application_fee_amount: pi.application_fee_amount ?? input.applicationFeeAmount,
      };
    } catch (err) {
      if (err instanceof PaymentProviderError) throw err;
      const e = err as { type?: string; code?: string; message?: string; statusCode?: number; requestId?: string };
      const status = e.statusCode ? ` (HTTP ${e.statusCode}${e.code ? `, ${e.code}` : ''})` : '';
      // Credential problems are the operator's, not the visitor's: say so without echoing Stripe's text.
      const message =
        e.type === 'StripeConnectionError'
          ? `Stripe could not be reached: ${e.message ?? String(err)}`
          : e.type === 'StripeAuthenticationError' || e.type === 'StripePermissionError'
            ? `Stripe rejected this server's credentials${status}.`
            : `Stripe refused the payment intent${status}: ${e.message ?? String(err)}`;
      throw new PaymentProviderError(message, e.code ?? e.type, e.statusCode, e.requestId);
    }
  }

  async cancelPaymentIntent(id: string): Promise<void> {
    const stripe = await this.stripe();
    await stripe.paymentIntents.cancel(id, { cancellation_reason: 'abandoned' });
  }
}
