import { randomBytes } from 'node:crypto';
import { ConflictError, type StoreEngine } from '../../store/engine/interface.js';
import type { Clock } from '../context.js';
import { ProblemError } from '../problems.js';

/** Seconds a signed notification stays valid, either side of its timestamp (Stripe's default). */
export const SIGNATURE_TOLERANCE_S = 300;
const SETTING = 'webhook_signing_secret';

/** A payment notification in Stripe's event format, after its signature checked out. */
export interface PaymentEvent {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

/**
 * The signing secret: WCM_WEBHOOK_SECRET when set, else one generated on first start and kept in
 * the store's settings, so it survives restarts and a configured processor keeps working.
 */
export async function webhookSecret(
  db: StoreEngine,
  env: NodeJS.ProcessEnv,
): Promise<{ secret: string; source: 'env' | 'stored' | 'generated' }> {
  if (env.WCM_WEBHOOK_SECRET) return { secret: env.WCM_WEBHOOK_SECRET, source: 'env' };
  const keep = () =>
    db.write(async (tx) => {
      const kept = (await tx.get('settings', SETTING))?.value;
      if (typeof kept === 'string' && kept) return { secret: kept, source: 'stored' as const };
      // A create: of two processes starting at once on one database, one keeps its secret and
      // the other (ConflictError) reads it.
      const made = await tx.create('settings', {
        id: SETTING,
        value: `whsec_${randomBytes(32).toString('base64url')}`,
      });
      return { secret: made.value as string, source: 'generated' as const };
    });
  try {
    return await keep();
  } catch (err) {
    if (!(err instanceof ConflictError && err.collection === 'settings')) throw err;
    return keep();
  }
}

const invalid = (detail: string) => new ProblemError('invalid_signature', { detail });

/**
 * Verifies `Stripe-Signature` over the raw body with the `stripe` package (HMAC-SHA256, constant
 * time, 300 s tolerance measured on our clock) and parses the event. Stripe only refuses old
 * timestamps; one more than 300 s in the future is refused here too, so a captured signature
 * cannot be pre-dated, and so is a header with more than one timestamp.
 */
export async function verifyPaymentEvent(
  raw: Buffer,
  header: string | undefined,
  secret: string,
  clock: Clock,
): Promise<PaymentEvent> {
  if (!header) throw invalid('The `Stripe-Signature` header is missing.');
  const now = clock.now().getTime();
  // One timestamp only: the `stripe` package verifies against the last `t=`, so a check of any one of
  // several could be passed by a decoy beside a pre-dated signature's own.
  const stamps = header.split(',').filter((item) => item.split('=')[0].trim() === 't');
  if (stamps.length > 1) throw invalid('The `Stripe-Signature` header holds more than one timestamp (`t=`).');
  const t = stamps.length ? /^\s*t=(\d+)/.exec(stamps[0]) : null;
  if (t && Number(t[1]) * 1000 - now > SIGNATURE_TOLERANCE_S * 1000)
    throw invalid('The signature timestamp is more than 300 seconds in the future.');
  const { default: Stripe } = await import('stripe');
  let event: unknown;
  try {
    event = Stripe.webhooks.constructEvent(raw, header, secret, SIGNATURE_TOLERANCE_S, undefined, now);
  } catch (err) {
    const msg = (err as Error).message ?? '';
    if (/tolerance/i.test(msg)) throw invalid('The signature timestamp is older than 300 seconds.');
    if (/parse|JSON/i.test(msg) && !/signature/i.test(msg))
      throw new ProblemError('invalid_json', { detail: 'The signed body is not valid JSON.' });
    throw invalid('The `Stripe-Signature` header does not match the body and the signing secret.');
  }
  const e = event as Partial<PaymentEvent> | null;
  if (
    !e ||
    typeof e !== 'object' ||
    typeof e.id !== 'string' ||
    typeof e.type !== 'string' ||
    !e.data ||
    typeof e.data.object !== 'object' ||
    e.data.object === null
  ) {
    throw new ProblemError('validation_failed', {
      detail: 'The notification is not a Stripe event: it needs `id`, `type` and `data.object`.',
      errors: { '(body)': ['Expected a Stripe event object with `id`, `type` and `data.object`.'] },
    });
  }
  return e as PaymentEvent;
}
