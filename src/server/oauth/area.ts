import { defineArea } from '../area.js';
import { oauthRoutes, wellKnownRoutes } from './mount.js';
import { pruneOAuth } from './models/prune.js';
import { CONSENT_JS } from './views/consent.js';

/** The OAuth authorization server and its metadata; needs the web area's sessions and the rate limiter. */
export const oauthArea = defineArea({
  name: 'oauth',
  needs: ['sessions', 'loopback', 'rateLimiter'],
  provides: [],
  register(s) {
    const { store, clock, services } = s;
    // Compaction forgets spent OAuth records (expired tokens and codes, old revoked families, idle clients).
    store.addPruner((tx, st) => pruneOAuth(tx, st, clock.now()));
    s.assets['consent.js'] = { type: 'text/javascript; charset=utf-8', body: CONSENT_JS };
    s.routes.push(
      oauthRoutes({
        store,
        clock,
        sessions: services.sessions,
        loopback: services.loopback,
        rateLimiter: services.rateLimiter,
      }),
      wellKnownRoutes(),
    );
  },
});
