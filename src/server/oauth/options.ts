import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { RateLimiter } from '../ratelimit.js';
import type { Sessions } from '../web/session.js';
import type { SignIn } from '../web/signin.js';

export interface OAuthOptions {
  store: Store;
  clock: Clock;
  sessions: Sessions;
  loopback: boolean;
  rateLimiter?: RateLimiter;
}

/** What every endpoint of the mount is given: the options and the mount's sign-in. */
export interface OAuthContext extends OAuthOptions {
  auth: SignIn;
}
