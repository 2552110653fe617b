import type { OfferRecord } from '../../store/records.js';
import { ProblemError, validationFailed } from '../problems.js';

/** Smallest USD total we charge (Stripe's card minimum with room for the fee). */
export const USD_MINIMUM_MINOR = 1000;
/** Largest order total, the contract's `amount_minor` bound applied to the whole order. */
export const MAXIMUM_TOTAL_MINOR = 10_000_000;
/** The platform's fee per order, in the order's currency's minor units. */
export const APPLICATION_FEE_MINOR = 100;

export interface Price {
  total: number;
  currency: string;
  applicationFee: number;
}

/**
 * The server decides the price: fixed offers charge their unit price × quantity (any
 * `amount_minor` sent is ignored, so a visitor cannot set their own price); contribution offers
 * charge the visitor's `amount_minor` × quantity.
 */
export function priceOrder(offer: OfferRecord, body: { amount_minor?: number; quantity: number }): Price {
  const currency = offer.currency.toLowerCase();
  let unit: number;
  if (offer.kind === 'fixed') {
    if (
      offer.unit_amount_minor === null ||
      !Number.isInteger(offer.unit_amount_minor) ||
      offer.unit_amount_minor <= 0
    ) {
      throw new ProblemError('offer_not_found', {
        detail: `Offer \`${offer.id}\` has no price, so it cannot be paid for.`,
      });
    }
    unit = offer.unit_amount_minor;
  } else {
    if (body.amount_minor === undefined) {
      throw validationFailed(
        {
          amount_minor: [
            'Required for a contribution offer: the amount to give per unit, in minor units (1000 to 10000000).',
          ],
        },
        'This is a contribution offer: send `amount_minor`.',
      );
    }
    unit = body.amount_minor;
  }
  const total = unit * body.quantity;
  const field = offer.kind === 'contribution' && body.quantity === 1 ? 'amount_minor' : 'quantity';
  if (total > MAXIMUM_TOTAL_MINOR) {
    throw validationFailed(
      {
        [field]: [
          `The order total would be ${total} ${currency} minor units; the most one order can be is ${MAXIMUM_TOTAL_MINOR}.`,
        ],
      },
      `The order total ${total} is over the maximum of ${MAXIMUM_TOTAL_MINOR} minor units.`,
    );
  }
  if (currency === 'usd' && total < USD_MINIMUM_MINOR) {
    throw new ProblemError('amount_below_minimum', {
      detail: `The order total is ${total} usd minor units (${(total / 100).toFixed(2)} USD); the minimum is ${USD_MINIMUM_MINOR} (${(USD_MINIMUM_MINOR / 100).toFixed(2)} USD).`,
    });
  }
  if (total <= APPLICATION_FEE_MINOR) {
    throw new ProblemError('amount_below_minimum', {
      detail: `The order total is ${total} ${currency} minor units; it must be more than the application fee of ${APPLICATION_FEE_MINOR}.`,
    });
  }
  return { total, currency, applicationFee: APPLICATION_FEE_MINOR };
}
