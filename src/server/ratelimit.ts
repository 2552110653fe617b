import type { AnyOperation } from '../contract/operations.js';
import type { Middleware } from './chain.js';
import { clientKey } from './client-address.js';
import type { Clock } from './clock.js';
import type { RequestInfo } from './request.js';
import { ProblemError } from './problems.js';
import type { Rate, RateLimitBackend, Spent } from '../store/shared-state.js';

export type { Rate, RateLimitBackend, Spent };

export const DEFAULT_RATE_LIMIT = 60;
const WINDOW_MS = 60_000;
/** Past this many tracked clients, full (idle) buckets are dropped (at most once a second). */
const PRUNE_AT = 10_000;
/** Hard cap: beyond it the longest-tracked bucket goes (that client merely starts full again). */
const MAX_BUCKETS = 100_000;

/**
 * A token bucket per client address and operation: `limit` tokens, refilled continuously at
 * `limit` per minute, so a burst of `limit` is allowed and the steady rate is `limit`/min.
 * The address is the TCP peer (IPv6 by its /64, which one host can rotate through), or the client a
 * `--trust-proxy` proxy names: `X-Forwarded-For` is believed from no one else, so a caller cannot pick one.
 * Buckets live in the backend (memory by default: nothing about visitors reaches the store).
 */
export class RateLimiter {
  private readonly rate: Rate;

  constructor(
    readonly limit: number,
    private readonly clock: Clock,
    readonly backend: RateLimitBackend = new MemoryBuckets(),
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`rate limit must be a positive integer, got ${limit}`);
    this.rate = { limit, msPerToken: WINDOW_MS / limit };
  }

  /** Every client starts with a full bucket again (after an emulator reset). */
  reset(): Promise<void> {
    return this.backend.reset();
  }

  /** The chain's step: public operations spend a token; their answers carry the counters. */
  readonly use: Middleware = async (x, next) => {
    if (x.op.access === 'public') {
      const spent = this.spend(x.op, x.info);
      Object.assign(x.headers, this.outcome(x.op, spent instanceof Promise ? await spent : spent));
    }
    return next(x);
  };

  /** Spends the client's token for `op`, or throws `rate_limited`; the counters' headers either way. */
  async before(op: AnyOperation, req: RequestInfo): Promise<{ headers: Record<string, string> }> {
    return { headers: this.outcome(op, await this.spend(op, req)) };
  }

  private spend(op: AnyOperation, req: RequestInfo): Spent | Promise<Spent> {
    return this.backend.spend(clientKey(req.remoteAddress), op.operationId, this.clock.now().getTime(), this.rate);
  }

  /** The counters' headers of an allowed request; `rate_limited` for a refused one. */
  private outcome(op: AnyOperation, b: Spent): Record<string, string> {
    if (!b.spent) {
      const retryAfter = Math.max(1, Math.ceil(((1 - b.tokens) * this.rate.msPerToken) / 1000));
      throw new ProblemError('rate_limited', {
        detail: `More than ${this.limit} requests a minute to \`${op.operationId}\` from this address.`,
        headers: { ...this.headers(b.tokens), 'Retry-After': String(retryAfter) },
      });
    }
    return this.headers(b.tokens);
  }

  /** RateLimit-Reset: seconds until the bucket is full again. */
  private headers(tokens: number): Record<string, string> {
    return {
      'RateLimit-Limit': String(this.limit),
      'RateLimit-Remaining': String(Math.floor(tokens)),
      'RateLimit-Reset': String(Math.ceil(((this.limit - tokens) * this.rate.msPerToken) / 1000)),
    };
  }
}

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets in this process's memory, bounded: idle ones are pruned, and there is a hard cap. */
export class MemoryBuckets implements RateLimitBackend {
  private readonly buckets = new Map<string, Bucket>();
  private lastPrune = Number.NEGATIVE_INFINITY;

  spend(client: string, route: string, now: number, rate: Rate): Spent {
    const key = `${client}\u0000${route}`;
    const b = this.buckets.get(key) ?? { tokens: rate.limit, at: now };
    b.tokens = Math.min(rate.limit, b.tokens + Math.max(0, now - b.at) / rate.msPerToken);
    b.at = now;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= PRUNE_AT && Math.abs(now - this.lastPrune) >= 1000) this.prune(now, rate);
      if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
      this.buckets.set(key, b);
    }
    const spent = b.tokens >= 1;
    if (spent) b.tokens -= 1;
    return { tokens: b.tokens, spent };
  }

  async reset(): Promise<void> {
    this.buckets.clear();
  }

  /** Tracked buckets (tests check memory stays bounded). */
  get size(): number {
    return this.buckets.size;
  }

  private prune(now: number, rate: Rate): void {
    this.lastPrune = now;
    for (const [k, b] of this.buckets) {
      if (b.tokens + (now - b.at) / rate.msPerToken >= rate.limit) this.buckets.delete(k);
    }
  }
}

declare module './context.js' {
  interface Services {
    rateLimiter?: RateLimiter;
  }
}
