import type { Middleware } from './chain.js';
import { IdempotencyGuard } from './idempotency.js';
import { LocalPaymentProvider } from './payments/local.js';
import type { PaymentProvider } from './payments/provider.js';
import { StripePaymentProvider } from './payments/stripe.js';
import { webhookSecret } from './payments/webhook.js';
import { DEFAULT_RATE_LIMIT, RateLimiter } from './ratelimit.js';
import type { LocalServerOptions } from './serve.js';
import { dashboardMount } from './dashboard/mount.js';
import { REQUESTS_JS } from './dashboard/pages/requests.js';
import { oauthMount, wellKnownMount } from './oauth/mount.js';
import { pruneOAuth } from './oauth/models/prune.js';
import { CONSENT_JS } from './oauth/views/consent.js';
import { mcpMount } from './mcp/mount.js';
import { MovableClock } from './emulator/clock.js';
import { adminToken, controlMount, injectFault, type FaultRule } from './emulator/control.js';
import { maskBody, RequestLog } from './emulator/log.js';
import { assetsMount, faviconMount } from './web/assets.js';
import { sessionKey, Sessions } from './web/session.js';
import { isLoopbackHost } from './web/signin.js';
import type { AppOptions } from './app.js';

/** Chooses the processor: `--payments`, else Stripe when STRIPE_SECRET_KEY is set, else local. */
export function choosePaymentProvider(options: Pick<LocalServerOptions, 'payments'>, env: NodeJS.ProcessEnv): PaymentProvider {
  const kind = options.payments ?? (env.STRIPE_SECRET_KEY ? 'stripe' : 'local');
  if (kind === 'local') return new LocalPaymentProvider();
  if (!env.STRIPE_SECRET_KEY) {
    throw new Error('`--payments stripe` needs STRIPE_SECRET_KEY in the environment (a `sk_test_…` key for testing). Set it, or use `--payments local`.');
  }
  return new StripePaymentProvider({ secretKey: env.STRIPE_SECRET_KEY, apiBase: env.WCM_STRIPE_API_BASE });
}

/**
 * The services, middleware and mounts `wcm serve` adds to the core App: each area that needs server-wide
 * state (rate limits, idempotency, payments) hooks in here.
 */
export const extendServer: NonNullable<LocalServerOptions['extend']> = async ({ store, clock, options }) => {
  const env = options.env ?? process.env;
  const payments = choosePaymentProvider(options, env);
  const signing = await webhookSecret(store, env);
  const limiter = new RateLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT, clock);
  const idempotency = new IdempotencyGuard(store, clock);
  // Compaction forgets spent OAuth records (expired tokens and codes, old revoked families, idle clients).
  store.addPruner((tx, s) => pruneOAuth(tx, s, clock.now()));
  await idempotency.pruneExpired();
  const notes = [
    `public routes: ${limiter.limit} requests a minute per client and route; payments: ${payments.name === 'stripe' ? `Stripe${env.WCM_STRIPE_API_BASE ? ` at ${env.WCM_STRIPE_API_BASE}` : ''}` : 'local (offline, no card network)'}`,
  ];
  // No secret goes into the notes: `wcm serve` prints a generated one once, on a terminal only.
  // The server's pages (OAuth consent, dashboard) share one session store and the /assets mount.
  // `loopback`: only this machine can connect, so sign-in may offer an account chooser.
  // CSRF tokens are HMACs with a key kept in the store (TRUST.md §2).
  const sessions = new Sessions(clock, { key: await sessionKey(store) });
  const loopback = isLoopbackHost(options.host ?? '127.0.0.1');
  // The control plane (docs/server.md: Controlling a running server): admin token, request log, faults, the movable clock.
  const admin = await adminToken(store, env);
  const log = new RequestLog(!!options.logBodies);
  const movable = clock instanceof MovableClock ? clock : undefined;
  const faults: FaultRule[] = [];
  const control = controlMount({
    store, dataFile: options.dataFile, clock: movable ?? new MovableClock(clock), log, admin: admin.token, faults, webhookSecret: signing.secret,
    afterReset: () => limiter.reset(),
  });
  const mounts = [assetsMount({ 'requests.js': { type: 'text/javascript; charset=utf-8', body: REQUESTS_JS }, 'consent.js': { type: 'text/javascript; charset=utf-8', body: CONSENT_JS } }), dashboardMount({ store, clock, sessions, loopback, requestLog: log }), oauthMount({ store, clock, sessions, loopback, rateLimiter: limiter }), wellKnownMount(), mcpMount({ store, clock }), control, faviconMount()];
  const observe: AppOptions['observe'] = (info, res, operationId, startedAt) => {
    // Reading the log (control plane, the dashboard's log page) is not logged: it would fill it.
    if (info.path.startsWith('/_emulator') || info.path.startsWith('/dashboard/requests') || info.path.startsWith('/assets/')) return;
    let problem: string | null = null;
    if (res.status >= 400 && res.body) problem = /"code":"([^"]+)"/.exec(res.body)?.[1] ?? null;
    log.record(
      movable ? movable.nowMs() : clock.now().getTime(), info.method, info.path, operationId, res.status,
      Math.round((performance.now() - startedAt) * 100) / 100, info.id, problem, info.remoteAddress,
      log.logBodies && info.rawBody.length ? maskBody(info.rawBody.toString('utf8')) : undefined,
    );
  };
  const fault: Middleware = async (x, next) => (faults.length ? ((await injectFault(faults, x.op.operationId)) ?? next(x)) : next(x));
  // Faults first (an injected answer replaces everything), then rate limits, so a flood never
  // reaches the idempotency records.
  const use = [fault, limiter.use, idempotency.use];
  return {
    services: { payments, webhookSecret: signing.secret, rateLimiter: limiter, idempotency, sessions, loopback, requestLog: log, adminToken: admin.token, secretSources: { admin: admin.source, webhook: signing.source } },
    use, mounts, notes, observe,
  };
};
