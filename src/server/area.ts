import type { StoreEngine } from '../store/engine/interface.js';
import type { Call, Middleware, Routes } from './app.js';
import type { Clock, SecretSource, Services } from './context.js';
import type { LocalServerOptions } from './serve.js';
import type { Asset } from './web/assets.js';

/** The services an area may add and read (each area declares its own on `Services`). */
export type ServiceName = keyof Omit<Services, 'db' | 'clock'>;

/**
 * What `wcm serve` hands each area as it starts (extend.ts): the store, the clock and the options
 * to read, and the lists an area adds to: its services, middleware, routes, page scripts. The
 * services an area declared it needs are there (`N`).
 */
export interface Setup<N extends ServiceName = never> {
  /** The store behind its interface (engine/interface.ts). */
  readonly db: StoreEngine;
  readonly clock: Clock;
  readonly options: LocalServerOptions;
  readonly env: NodeJS.ProcessEnv;
  readonly services: Omit<Services, 'db' | 'clock'> & { [K in N]-?: NonNullable<Services[K]> };
  /** Middleware around `/v1` operations, in registration order (chain.ts). */
  readonly use: Middleware[];
  /** Middleware around every request, outermost (before the Host and Origin checks): observers (chain.ts). */
  readonly around: Middleware<Call>[];
  /** Routes outside `/v1`, added to the App's one router. */
  readonly routes: Routes[];
  /** Scripts served under /assets by name (the web area serves them). */
  readonly assets: Record<string, Asset>;
  /** Where the admin and webhook secrets came from this start (TRUST §5). */
  readonly secrets: { admin?: SecretSource; webhook?: SecretSource };
}

/**
 * A part of the server: the services it reads (`needs`) and adds (`provides`), and `register`.
 * `wcm serve` registers an area once every area providing what it needs has registered
 * (extend.ts `orderAreas`), so no area relies on where it sits in a list.
 */
export interface Area<N extends ServiceName = ServiceName> {
  readonly name: string;
  readonly needs: readonly N[];
  readonly provides: readonly ServiceName[];
  register(setup: Setup<N>): Promise<void> | void;
}

/** An area, its `register` typed by what it needs. */
export const defineArea = <N extends ServiceName = never>(area: Area<N>): Area => area as unknown as Area;
