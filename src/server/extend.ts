import type { Setup, Register } from './area.js';
import { register as dashboard } from './dashboard/area.js';
import { register as emulator } from './emulator/area.js';
import { IdempotencyGuard } from './idempotency.js';
import { register as mcp } from './mcp/area.js';
import { register as oauth } from './oauth/area.js';
import { register as payments } from './payments/area.js';
import { PgIdempotencyClaims, PgRateLimits } from '../store/pg/shared-tables.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from './ratelimit.js';
import type { LocalServerOptions } from './serve.js';
import { register as web } from './web/area.js';

export { choosePaymentProvider } from './payments/area.js';

/** Rate limits run before idempotency, so a flood never reaches the idempotency records. */
const limits: Register = async (s) => {
  // On PostgreSQL the buckets are shared by every process on the database (docs/sandbox.md).
  const limiter = new RateLimiter(
    s.options.rateLimit ?? DEFAULT_RATE_LIMIT,
    s.clock,
    s.store.shared ? new PgRateLimits(s.store.shared.sql) : undefined,
  );
  // On PostgreSQL a key in flight on one process is in flight on every process.
  const idempotency = new IdempotencyGuard(
    s.store,
    s.clock,
    undefined,
    s.store.shared ? new PgIdempotencyClaims(s.store.shared.sql) : undefined,
  );
  await idempotency.pruneExpired();
  s.services.rateLimiter = limiter;
  s.services.idempotency = idempotency;
  s.use.push(limiter.use, idempotency.use);
};

/**
 * The areas `wcm serve` adds to the core App, in order: each registers its services, middleware
 * and routes (area.ts), and may read the services of those before it.
 */
const AREAS: Register[] = [payments, emulator, limits, web, dashboard, oauth, mcp];

export const extendServer: NonNullable<LocalServerOptions['extend']> = async ({ store, clock, options }) => {
  const env = options.env ?? process.env;
  const s: Setup = {
    store,
    clock,
    options,
    env,
    services: {},
    use: [],
    around: [],
    routes: [],
    assets: {},
    secrets: {},
  };
  for (const register of AREAS) await register(s);
  const { payments: provider, rateLimiter } = s.services;
  // No secret goes into the notes: `wcm serve` prints a generated one once, on a terminal only.
  const notes = [
    `public routes: ${rateLimiter!.limit} requests a minute per client and route; payments: ${provider!.name === 'stripe' ? `Stripe${env.WCM_STRIPE_API_BASE ? ` at ${env.WCM_STRIPE_API_BASE}` : ''}` : 'local (offline, no card network)'}`,
  ];
  const services = { ...s.services, secretSources: { admin: s.secrets.admin!, webhook: s.secrets.webhook! } };
  return { services, use: s.use, around: s.around, routes: s.routes, notes };
};
