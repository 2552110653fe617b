import type { Store } from '../store/store.js';
import type { Middleware, RequestMiddleware, Routes } from './app.js';
import type { Clock, SecretSource, Services } from './context.js';
import type { LocalServerOptions } from './serve.js';
import type { Asset } from './web/assets.js';

/**
 * What `wcm serve` hands each area as it starts (extend.ts): the store, the clock and the options
 * to read, and the lists an area adds to: its services, middleware, routes, page scripts.
 * An area is one `register` function; later areas read the services earlier ones added.
 */
export interface Setup {
  readonly store: Store;
  readonly clock: Clock;
  readonly options: LocalServerOptions;
  readonly env: NodeJS.ProcessEnv;
  readonly services: Omit<Services, 'store' | 'clock'>;
  /** Middleware around `/v1` operations, in registration order (chain.ts). */
  readonly use: Middleware[];
  /** Middleware around every request, outermost (before the Host and Origin checks): observers (chain.ts). */
  readonly around: RequestMiddleware[];
  /** Routes outside `/v1`, added to the App's one router. */
  readonly routes: Routes[];
  /** Scripts served under /assets by name (the web area serves them). */
  readonly assets: Record<string, Asset>;
  /** Where the admin and webhook secrets came from this start (TRUST §5). */
  readonly secrets: { admin?: SecretSource; webhook?: SecretSource };
}

export type Register = (setup: Setup) => Promise<void> | void;
