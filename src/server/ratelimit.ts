import { createHash } from 'node:crypto';
import type { AnyOperation } from '../contract/operations.js';
import { ConflictError, type StoreEngine } from '../store/engine/interface.js';
import type { Middleware } from './chain.js';
import { clientKey } from './client-address.js';
import type { RequestInfo } from './request.js';
import { ProblemError } from './problems.js';

export const DEFAULT_RATE_LIMIT = 60;
const WINDOW_MS = 60_000;
/** Buckets untouched for a window are full again: they are dropped, at most once a minute. */
const PRUNE_EVERY_MS = 60_000;
/** The most buckets one pruning deletes (the rest wait for the next one). */
const PRUNE_BATCH = 1000;

/** A bucket after a request: the tokens left (fractional) and whether the request got one. */
interface Spent {
  tokens: number;
  spent: boolean;
}

/**
 * A bucket's id: the route, and the client address hashed with it (SHA-256, 128 bits in hex), so
 * the store never holds a visitor's address.
 */
export const bucketId = (client: string, route: string): string =>
  `${route}|${createHash('sha256').update(`${route}\n${client}`).digest('hex').slice(0, 32)}`;

/**
 * A token bucket per client address and operation: `limit` tokens, refilled continuously at
 * `limit` per minute, so a burst of `limit` is allowed and the steady rate is `limit`/min.
 * The address is the TCP peer (IPv6 by its /64, which one host can rotate through), or the client a
 * `--trust-proxy` proxy names: `X-Forwarded-For` is believed from no one else, so a caller cannot pick one.
 * Buckets are records of the store (`rate_limit_buckets`), each read and written in one write per
 * request, by the store's clock: on PostgreSQL every process shares them and the database's clock,
 * so a limit holds across processes whatever their own clocks say. The JSON engine keeps them in
 * memory only (MEMORY_ONLY): that write costs no journal line, and a restart refills every bucket.
 */
export class RateLimiter {
  private readonly msPerToken: number;
  /** When the last pruning started, by the store's clock (epoch ms). */
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    readonly limit: number,
    private readonly db: StoreEngine,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new Error(`rate limit must be a positive integer, got ${limit}`);
    this.msPerToken = WINDOW_MS / limit;
  }

  /** Every client starts with a full bucket again (after an emulator reset). */
  async reset(): Promise<void> {
    await this.db.load(['rate_limit_buckets'], []);
  }

  /** The chain's step: public operations spend a token; their answers carry the counters. */
  readonly use: Middleware = async (x, next) => {
    if (x.op.access === 'public') Object.assign(x.headers, this.outcome(x.op, await this.spend(x.op, x.info)));
    return next(x);
  };

  /** Spends the client's token for `op`, or throws `rate_limited`; the counters' headers either way. */
  async before(op: AnyOperation, req: RequestInfo): Promise<{ headers: Record<string, string> }> {
    return { headers: this.outcome(op, await this.spend(op, req)) };
  }

  /** Refills the bucket up to the store's time, then spends one token if a whole one is there. */
  private async spend(op: AnyOperation, req: RequestInfo): Promise<Spent> {
    const id = bucketId(clientKey(req.remoteAddress), op.operationId);
    const { limit, msPerToken } = this;
    const once = () =>
      this.db.write(async (tx) => {
        const now = await tx.now();
        const b = await tx.get('rate_limit_buckets', id);
        // The bucket's time never moves backwards: a clock set back refills nothing.
        const at = b ? Math.max(b.at, now) : now;
        const refilled = b ? Math.min(limit, b.tokens + (at - b.at) / msPerToken) : limit;
        const spent = refilled >= 1;
        const tokens = spent ? refilled - 1 : refilled;
        // A refusal leaves the bucket as it was (its refill is the same computed later), so a
        // flood writes nothing. A new bucket is created: two first requests at once cannot both
        // start from full.
        if (b && !spent) return { spent, tokens, now };
        if (b) await tx.put('rate_limit_buckets', { id, tokens, at });
        else await tx.create('rate_limit_buckets', { id, tokens, at });
        return { spent, tokens, now };
      });
    let out: Spent & { now: number };
    try {
      out = await once();
    } catch (err) {
      // Another request created this bucket first: spend from it.
      if (!(err instanceof ConflictError && err.collection === 'rate_limit_buckets')) throw err;
      out = await once();
    }
    if (out.now - this.lastPrune >= PRUNE_EVERY_MS || out.now < this.lastPrune) {
      this.lastPrune = out.now;
      void this.prune().catch(() => undefined);
    }
    return out;
  }

  /** Drops buckets untouched for a whole window (full again: as if never used), oldest first, bounded. */
  async prune(): Promise<number> {
    return this.db.write(async (tx) => {
      const now = await tx.now();
      const idle = await tx.page('rate_limit_buckets', 'bucketsByAt', {
        partition: '*',
        limit: PRUNE_BATCH,
        // Idle for a whole window: last refilled at or before now - WINDOW_MS.
        to: [now - WINDOW_MS + 1],
      });
      for (const b of idle.items) await tx.delete('rate_limit_buckets', b.id);
      return idle.items.length;
    });
  }

  /** The counters' headers of an allowed request; `rate_limited` for a refused one. */
  private outcome(op: AnyOperation, b: Spent): Record<string, string> {
    if (!b.spent) {
      const retryAfter = Math.max(1, Math.ceil(((1 - b.tokens) * this.msPerToken) / 1000));
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
      'RateLimit-Reset': String(Math.ceil(((this.limit - tokens) * this.msPerToken) / 1000)),
    };
  }
}

declare module './context.js' {
  interface Services {
    rateLimiter?: RateLimiter;
  }
}
