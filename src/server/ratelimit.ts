import type { AnyOperation } from '../contract/operations.js';
import type { Middleware } from './chain.js';
import type { Clock } from './clock.js';
import type { RequestInfo } from './request.js';
import { ProblemError } from './problems.js';

export const DEFAULT_RATE_LIMIT = 60;
const WINDOW_MS = 60_000;
/** Past this many tracked clients, full (idle) buckets are dropped (at most once a second). */
const PRUNE_AT = 10_000;
/** Hard cap: beyond it the longest-tracked bucket goes (that client merely starts full again). */
const MAX_BUCKETS = 100_000;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * A token bucket per client address and operation: `limit` tokens, refilled continuously at
 * `limit` per minute, so a burst of `limit` is allowed and the steady rate is `limit`/min.
 * The address is the TCP peer: `X-Forwarded-For` is not trusted, so a caller cannot pick one.
 * Buckets live in memory only (nothing about visitors reaches the store).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly msPerToken: number;
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    readonly limit: number,
    private readonly clock: Clock,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`rate limit must be a positive integer, got ${limit}`);
    this.msPerToken = WINDOW_MS / limit;
  }

  /** Every client starts with a full bucket again (after an emulator reset). */
  reset(): void {
    this.buckets.clear();
  }

  /** The chain's step: public operations spend a token; their answers carry the counters. */
  readonly use: Middleware = async (x, next) => {
    if (x.op.access === 'public') Object.assign(x.headers, this.before(x.op, x.info).headers);
    return next(x);
  };

  before(op: AnyOperation, req: RequestInfo): { headers: Record<string, string> } {
    const now = this.clock.now().getTime();
    const key = `${req.remoteAddress}\u0000${op.operationId}`;
    const b = this.buckets.get(key) ?? { tokens: this.limit, at: now };
    b.tokens = Math.min(this.limit, b.tokens + Math.max(0, now - b.at) / this.msPerToken);
    b.at = now;
    if (!this.buckets.has(key)) {
      if (this.buckets.size >= PRUNE_AT && Math.abs(now - this.lastPrune) >= 1000) this.prune(now);
      if (this.buckets.size >= MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
      this.buckets.set(key, b);
    }
    if (b.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil(((1 - b.tokens) * this.msPerToken) / 1000));
      throw new ProblemError('rate_limited', {
        detail: `More than ${this.limit} requests a minute to \`${op.operationId}\` from this address.`,
        headers: { ...this.headers(b), 'Retry-After': String(retryAfter) },
      });
    }
    b.tokens -= 1;
    return { headers: this.headers(b) };
  }

  /** RateLimit-Reset: seconds until the bucket is full again. */
  private headers(b: Bucket): Record<string, string> {
    return {
      'RateLimit-Limit': String(this.limit),
      'RateLimit-Remaining': String(Math.floor(b.tokens)),
      'RateLimit-Reset': String(Math.ceil(((this.limit - b.tokens) * this.msPerToken) / 1000)),
    };
  }

  private prune(now: number): void {
    this.lastPrune = now;
    for (const [k, b] of this.buckets) {
      if (b.tokens + (now - b.at) / this.msPerToken >= this.limit) this.buckets.delete(k);
    }
  }

  /** Tracked buckets (tests check memory stays bounded). */
  get size(): number {
    return this.buckets.size;
  }
}

declare module './context.js' {
  interface Services {
    rateLimiter?: RateLimiter;
  }
}
