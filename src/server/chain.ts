/**
 * The middleware chain around an operation's handler (hono's `compose` is the model): each
 * cross-cutting concern (faults, rate limits, idempotency, auth) is one `Middleware` that runs
 * code before and after `next`, or answers without calling it. A new concern is one function and
 * one entry in the list; the App knows no kinds of hooks.
 */
import type { AnyOperation } from '../contract/operations.js';
import type { AuthContext } from './auth.js';
import type { RequestInfo } from './request.js';
import type { AppResponse } from './response.js';

import type { Tx } from '../store/records.js';

/** One operation's request as it passes through the chain: what middleware reads and adds. */
export interface Exchange {
  readonly op: AnyOperation;
  readonly info: RequestInfo;
  /** The path parameters as matched, before validation. */
  readonly pathParams: Record<string, string>;
  readonly search: string;
  /** Set by the auth middleware for bearer and token operations. */
  auth: AuthContext | null;
  /**
   * Set by the idempotency middleware on public POSTs: records this request's success in the
   * same transaction as what it creates, so a crash can never leave one without the other (a
   * retry would then create a second order). Handlers get it as `ctx.idempotency`.
   */
  idempotency?: { record(tx: Tx, status: number, data: unknown): void };
  /** Headers middleware adds to the response, whatever it is (rate-limit counters). */
  readonly headers: Record<string, string>;
}

export type Next = (x: Exchange) => Promise<AppResponse>;
export type Middleware = (x: Exchange, next: Next) => Promise<AppResponse>;

/**
 * One function running `middleware` in order, then `last`. Each step's `next` is built once here,
 * not per request, so the chain allocates nothing per call.
 */
export function compose(middleware: readonly Middleware[], last: Next): Next {
  let next = last;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const mw = middleware[i];
    const inner = next;
    next = (x) => mw(x, inner);
  }
  return next;
}
