import type { StoreEngine } from '../../store/engine/interface.js';
import type { RateLimiter } from '../ratelimit.js';
import type { OAuthPruner } from './models/prune.js';
import type { Sessions } from '../web/session.js';
import type { SignIn } from '../web/signin.js';

export interface OAuthOptions {
  /** The store the OAuth records are read and written in. */
  db: StoreEngine;
  sessions: Sessions;
  loopback: boolean;
  rateLimiter?: RateLimiter;
  /** Forgets spent records now and then (models/prune.ts); poked after requests that make them. */
  pruner?: OAuthPruner;
}

/** What every endpoint of the mount is given: the options and the mount's sign-in. */
export interface OAuthContext extends OAuthOptions {
  auth: SignIn;
}
