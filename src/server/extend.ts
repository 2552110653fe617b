import type { LocalServerOptions } from './serve.js';

/**
 * The services and guards `wcm serve` adds to the core App: each area that needs server-wide
 * state (rate limits, idempotency, payments) hooks in here.
 */
export const extendServer: NonNullable<LocalServerOptions['extend']> = async () => {
  return { services: {}, guards: [], notes: [] };
};
