import { defineArea } from '../area.js';
import type { LocalServerOptions } from '../serve.js';
import { LocalPaymentProvider } from './local.js';
import type { PaymentProvider } from './provider.js';
import { StripePaymentProvider } from './stripe.js';
import { webhookSecret } from './webhook.js';

/** Chooses the processor: `--payments`, else Stripe when STRIPE_SECRET_KEY is set, else local. */
export function choosePaymentProvider(
  options: Pick<LocalServerOptions, 'payments'>,
  env: NodeJS.ProcessEnv,
): PaymentProvider {
  const kind = options.payments ?? (env.STRIPE_SECRET_KEY ? 'stripe' : 'local');
  if (kind === 'local') return new LocalPaymentProvider();
  if (!env.STRIPE_SECRET_KEY) {
    throw new Error(
      '`--payments stripe` needs STRIPE_SECRET_KEY in the environment (a `sk_test_…` key for testing). Set it, or use `--payments local`.',
    );
  }
  return new StripePaymentProvider({ secretKey: env.STRIPE_SECRET_KEY, apiBase: env.WCM_STRIPE_API_BASE });
}

/** The payment processor and the secret payment notifications are signed with. */
export const paymentsArea = defineArea({
  name: 'payments',
  needs: [],
  provides: ['payments', 'webhookSecret'],
  async register(s) {
    s.services.payments = choosePaymentProvider(s.options, s.env);
    const signing = await webhookSecret(s.db, s.env);
    s.services.webhookSecret = signing.secret;
    s.secrets.webhook = signing.source;
  },
});
