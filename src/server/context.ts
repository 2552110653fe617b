import type { z } from 'zod';
import type { Operation } from '../contract/operations.js';
import type { Store, Tx } from '../store/store.js';
import type { AuthContext } from './auth.js';
import type { Page } from './paging.js';
import type { RequestLog } from './emulator/log.js';
import type { IdempotencyGuard } from './idempotency.js';
import type { PaymentProvider } from './payments/provider.js';
import type { RateLimiter } from './ratelimit.js';
import type { Sessions } from './web/session.js';

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** The clock's time as the API writes timestamps (ISO 8601, UTC, milliseconds). */
export const timestamp = (clock: Clock): string => isoTime(clock.now());

let isoSecond = NaN;
let isoPrefix = '';
/**
 * `d.toISOString()`, formatted once per second: within the same second only the milliseconds
 * change. (V8 formats every call through snprintf: about a microsecond, once per write.)
 */
export function isoTime(d: Date): string {
  const ms = d.getTime();
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond) {
    // An invalid date throws here, as toISOString does.
    const full = d.toISOString();
    isoSecond = second;
    isoPrefix = full.slice(0, -4);
    return full;
  }
  const frac = ms - second * 1000;
  return `${isoPrefix}${frac < 10 ? '00' : frac < 100 ? '0' : ''}${frac}Z`;
}

/** What a handler may know about the request beyond its validated parts. */
export interface RequestInfo {
  id: string;
  method: string;
  /** Full path as received, e.g. `/api/v1/workspaces/…/lists`. */
  path: string;
  /** `http://host:port/v1` or `/api/v1`: the base address the caller used. */
  baseUrl: string;
  origin: string;
  headers: Record<string, string | string[] | undefined>;
  remoteAddress: string;
  rawBody: Buffer;
  /** In-process dispatch from /mcp: the audience OAuth tokens must have (AppRequest.audience). */
  audience?: string;
  /**
   * Set by the idempotency guard on public POSTs: records this request's success in the same
   * transaction as what it creates, so a crash can never leave one without the other (a retry
   * would then create a second order). Call it with the status and `data` the handler returns.
   */
  idempotency?: { record(tx: Tx, status: number, data: unknown): void };
}

/** Server-wide services handlers use. A bare App (tests) has only the store and clock; `wcm serve` adds the rest (extend.ts). */
export interface Services {
  store: Store;
  clock: Clock;
  /** The payment processor; without one, payments are settled offline. */
  payments?: PaymentProvider;
  /** The secret payment notifications are signed with. */
  webhookSecret?: string;
  rateLimiter?: RateLimiter;
  idempotency?: IdempotencyGuard;
  sessions?: Sessions;
  /** Whether the server listens on a loopback address only. */
  loopback?: boolean;
  requestLog?: RequestLog;
  /** The control plane's admin token. */
  adminToken?: string;
}

/** What an area adds to the store and clock. */
export type ExtraServices = Omit<Services, 'store' | 'clock'>;

export interface HandlerContext<P = unknown, Q = unknown, B = unknown> {
  params: P;
  query: Q;
  body: B;
  /** Null for public and signature operations. */
  auth: AuthContext | null;
  store: Store;
  clock: Clock;
  request: RequestInfo;
  services: Services;
}

/** A result with a status or headers other than the operation's defaults. */
export class Reply {
  constructor(
    readonly data: unknown,
    readonly status?: number,
    readonly headers: Record<string, string> = {},
  ) {}
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;
type Result<O extends Operation> = O['list'] extends true ? Page<z.input<O['response']>> : z.input<O['response']> | Reply;

export type Handler<O extends Operation = Operation> = (
  ctx: HandlerContext<Out<O['params']>, Out<O['query']>, Out<O['body']>>,
) => Result<O> | Promise<Result<O>> | Reply | Promise<Reply>;

/** Ties a handler to its operation so its context is typed from the operation's schemas. */
export function implement<O extends Operation>(op: O, handler: Handler<O>): [string, Handler] {
  return [op.operationId, handler as unknown as Handler];
}
