import type { z } from 'zod';
import type { Operation } from '../contract/operations.js';
import type { ReadTx, StoreEngine } from '../store/engine/interface.js';
import type { AuthContext } from './auth.js';
import type { Call } from './chain.js';
import type { Page } from './paging.js';

export { systemClock, timestamp, isoTime, type Clock } from './clock.js';
export type { RequestInfo } from './request.js';
import { isoTime, type Clock } from './clock.js';
import type { RequestInfo } from './request.js';

/**
 * Server-wide services handlers use. A bare App (tests) has only the store and clock; `wcm serve`
 * adds the rest (extend.ts). Each area declares its own services beside its code, by augmenting
 * this interface (`declare module '../context.js'`), so this file imports nothing from the areas.
 */
export interface Services {
  /** The store behind its interface (engine/interface.ts): every handler reads and writes through it. */
  db: StoreEngine;
  clock: Clock;
  /** Whether the server listens on a loopback address only. */
  loopback?: boolean;
  /**
   * Where the two secrets came from this start: `env` ones are never printed, a `generated` one is
   * shown once (TRUST §5; `wcm serve` decides how).
   */
  secretSources?: { admin: SecretSource; webhook: SecretSource };
}

export type SecretSource = 'env' | 'stored' | 'generated';

/** What an area adds to the store and clock. */
export type ExtraServices = Omit<Services, 'db' | 'clock'>;

export interface HandlerContext<P = unknown, Q = unknown, B = unknown> {
  params: P;
  query: Q;
  body: B;
  /** Null for public and signature operations. */
  auth: AuthContext | null;
  /** The store behind its interface: one `db.read` or `db.write` per request (engine/interface.ts). */
  db: StoreEngine;
  clock: Clock;
  request: RequestInfo;
  services: Services;
  /** On public POSTs with an Idempotency-Key: record the success in the handler's own transaction (chain.ts). */
  idempotency?: Call['idempotency'];
}

/**
 * The store's time as the contract writes timestamps: `tx.now()`, the engine's clock plus the
 * emulator's offset (the database's clock on PostgreSQL, so processes agree).
 */
export const txTimestamp = async (tx: ReadTx): Promise<string> => isoTime(new Date(await tx.now()));

/** A result with a status or headers other than the operation's defaults. */
export class Reply {
  constructor(
    readonly data: unknown,
    readonly status?: number,
    readonly headers: Record<string, string> = {},
  ) {}
}

type Out<T> = T extends z.ZodType ? z.output<T> : undefined;
type Result<O extends Operation> = O['list'] extends true
  ? Page<z.input<O['response']>>
  : z.input<O['response']> | Reply;

export type Handler<O extends Operation = Operation> = (
  ctx: HandlerContext<Out<O['params']>, Out<O['query']>, Out<O['body']>>,
) => Result<O> | Promise<Result<O>> | Reply | Promise<Reply>;

/** Ties a handler to its operation so its context is typed from the operation's schemas. */
export function implement<O extends Operation>(op: O, handler: Handler<O>): [string, Handler] {
  return [op.operationId, handler as unknown as Handler];
}
