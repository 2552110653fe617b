/**
 * The middleware chain (hono's `compose` is the model): each cross-cutting concern is one
 * function `(x, next)` that runs code before and after `next`, or answers without calling it. One
 * kind of middleware over one context, the `Call`, in two lists:
 * - around every request: the areas' observers (the error log, the request log: they see every
 *   answer, refusals included), the Host check (the first step that may answer: 421 before
 *   anything), the Origin rule and CORS, then the router;
 * - around every `/v1` operation, once routed (`x.op` is set: an `OperationCall`): the core's
 *   answering, the areas' (faults, rate limits, idempotency), then auth and `invoke`.
 * An area may also put its own list in front of its routes (`guarded`: the dashboard's session).
 */
import type { AnyOperation } from '../contract/operations.js';
import type { AuthContext } from './auth.js';
import type { AppRequest, RequestInfo } from './request.js';
import type { AppResponse } from './response.js';

import type { WriteTx } from '../store/engine/interface.js';

/**
 * One request as it passes through the chain: what middleware reads and adds. The App adds `app`
 * (app.ts), and an area may add what its middleware finds (`declare module`, as for `Services`).
 */
export interface Call {
  readonly req: AppRequest;
  readonly info: RequestInfo;
  /** The request target's query, `?…` or empty. */
  readonly search: string;
  /** The matched route's path parameters, percent-decoded where they decode. */
  params: Record<string, string>;
  /** The `/v1` operation the request reached, once routed (the request log shows it). */
  op: AnyOperation | null;
  /** Set by the auth step for bearer and token operations. */
  auth: AuthContext | null;
  /**
   * Set by the idempotency middleware on public POSTs: records this request's success in the
   * same transaction as what it creates, so a crash can never leave one without the other (a
   * retry would then create a second order). A record another request with the same key made
   * first is a ConflictError that ends the write; the middleware then answers with that record.
   * Handlers get it as `ctx.idempotency`.
   */
  idempotency?: { record(tx: WriteTx, status: number, data: unknown): Promise<void> };
  /** Headers middleware adds to the response, whatever it is (rate-limit counters). */
  readonly headers: Record<string, string>;
}

/** A call once routed to a `/v1` operation. */
export type OperationCall = Call & { readonly op: AnyOperation };

/** The one kind of middleware: a step around what comes after it; operation steps by default. */
export type Middleware<X = OperationCall> = (x: X, next: (x: X) => Promise<AppResponse>) => Promise<AppResponse>;

export type RouteHandler = (x: Call) => Promise<AppResponse> | AppResponse;

/**
 * One function running `middleware` in order, then `last`. Each step's `next` is built once here,
 * not per request, so the chain allocates nothing per call.
 */
export function compose<X>(
  middleware: readonly Middleware<X>[],
  last: (x: X) => Promise<AppResponse>,
): (x: X) => Promise<AppResponse> {
  let next = last;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const mw = middleware[i];
    const inner = next;
    next = (x) => mw(x, inner);
  }
  return next;
}

/** `handler` behind an area's own middleware, in order (composed once, at registration). */
export function guarded(middleware: readonly Middleware<Call>[], handler: RouteHandler): RouteHandler {
  return middleware.length ? compose(middleware, async (x) => handler(x)) : handler;
}
