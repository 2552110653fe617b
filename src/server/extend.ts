import { defineArea, type Area, type ServiceName, type Setup } from './area.js';
import { dashboardArea } from './dashboard/area.js';
import { emulatorArea } from './emulator/area.js';
import { IdempotencyGuard } from './idempotency.js';
import { mcpArea } from './mcp/area.js';
import { oauthArea } from './oauth/area.js';
import { paymentsArea } from './payments/area.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from './ratelimit.js';
import type { LocalServerOptions } from './serve.js';
import { webArea } from './web/area.js';

export { choosePaymentProvider } from './payments/area.js';

/** Rate limits run before idempotency, so a flood never reaches the idempotency records. */
export const limitsArea = defineArea({
  name: 'limits',
  needs: [],
  provides: ['rateLimiter', 'idempotency'],
  async register(s) {
    // Buckets and keys are records of the store: on PostgreSQL every process shares them.
    const limiter = new RateLimiter(s.options.rateLimit ?? DEFAULT_RATE_LIMIT, s.db);
    const idempotency = new IdempotencyGuard(s.db);
    await idempotency.pruneExpired();
    s.services.rateLimiter = limiter;
    s.services.idempotency = idempotency;
    s.use.push(limiter.use, idempotency.use);
  },
});

/**
 * The areas `wcm serve` adds to the core App. Each registers once the areas providing what it needs
 * have; otherwise in this order, which is also the order of their middleware: the emulator's
 * injected faults come before rate limits and idempotency.
 */
const AREAS: Area[] = [paymentsArea, emulatorArea, limitsArea, webArea, dashboardArea, oauthArea, mcpArea];

/** `areas` in an order where every area comes after those providing what it needs (stable otherwise). */
export function orderAreas<A extends { name: string; needs: readonly string[]; provides: readonly string[] }>(
  areas: readonly A[],
): A[] {
  const out: A[] = [];
  const have = new Set<string>();
  const left = [...areas];
  while (left.length) {
    const i = left.findIndex((a) => a.needs.every((n) => have.has(n)));
    if (i === -1) {
      const missing = left.map((a) => `${a.name} (${a.needs.filter((n) => !have.has(n)).join(', ')})`);
      throw new Error(`No area provides what these need: ${missing.join('; ')}.`);
    }
    const [next] = left.splice(i, 1);
    out.push(next);
    next.provides.forEach((p) => have.add(p));
  }
  return out;
}

export const extendServer: NonNullable<LocalServerOptions['extend']> = async ({ db, clock, options }) => {
  const env = options.env ?? process.env;
  const s: Setup = {
    db,
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
  // In this order every area finds what it needs: each checked to have added what it provides.
  const ready = s as Setup<ServiceName>;
  for (const area of orderAreas(AREAS)) {
    await area.register(ready);
    const absent = area.provides.filter((p) => s.services[p] === undefined);
    if (absent.length) throw new Error(`The ${area.name} area did not provide ${absent.join(', ')}.`);
  }
  const { payments: provider, rateLimiter } = ready.services;
  // No secret goes into the notes: `wcm serve` prints a generated one once, on a terminal only.
  const notes = [
    `public routes: ${rateLimiter.limit} requests a minute per client and route; payments: ${provider.name === 'stripe' ? `Stripe${env.WCM_STRIPE_API_BASE ? ` at ${env.WCM_STRIPE_API_BASE}` : ''}` : 'local (offline, no card network)'}`,
  ];
  const services = { ...s.services, secretSources: { admin: s.secrets.admin!, webhook: s.secrets.webhook! } };
  return { services, use: s.use, around: s.around, routes: s.routes, notes };
};
