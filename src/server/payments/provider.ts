/** What the server asks of a card payment processor: one interface, a local and a Stripe implementation. */
export interface CreateIntentInput {
  orderId: string;
  offerId: string;
  workspaceId: string;
  /** Minor units, already priced by the server. */
  amount: number;
  /** Lower-case ISO 4217, as Stripe uses it. */
  currency: string;
  applicationFeeAmount: number;
  /** The workspace's connected account (`acct_…`): funds go there, less the application fee. */
  destination: string;
  receiptEmail?: string;
}

export interface ProviderIntent {
  id: string;
  client_secret: string;
  status: string;
  amount: number;
  currency: string;
  application_fee_amount: number;
}

export interface PaymentProvider {
  readonly name: 'local' | 'stripe';
  createPaymentIntent(input: CreateIntentInput): Promise<ProviderIntent>;
  /** Best effort: withdraws an intent whose order could not be stored, so it can never be paid. */
  cancelPaymentIntent(id: string): Promise<void>;
}

/** The processor refused or could not be reached; `message` is safe to show to the caller. */
export class PaymentProviderError extends Error {
  constructor(
    message: string,
    readonly providerCode?: string,
    readonly providerStatus?: number,
    readonly providerRequestId?: string,
  ) {
    super(message);
  }
}

/** The idempotency key the processor sees: one per order, so a retried call never charges twice. */
export const providerIdempotencyKey = (orderId: string) => `wcm-order-${orderId}`;

declare module '../context.js' {
  interface Services {
    /** The payment processor; without one, payments are settled offline. */
    payments?: PaymentProvider;
    /** The secret payment notifications are signed with. */
    webhookSecret?: string;
  }
}
