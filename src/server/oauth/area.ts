import { defineArea } from '../area.js';
import { oauthRoutes, wellKnownRoutes } from './mount.js';
import { OAuthPruner } from './models/prune.js';
import { CONSENT_JS } from './views/consent.js';

/** The OAuth authorization server and its metadata; needs the web area's sessions and the rate limiter. */
export const oauthArea = defineArea({
  name: 'oauth',
  needs: ['sessions', 'loopback', 'rateLimiter'],
  provides: [],
  register(s) {
    const { db, services } = s;
    s.assets['consent.js'] = { type: 'text/javascript; charset=utf-8', body: CONSENT_JS };
    s.routes.push(
      oauthRoutes({
        db,
        sessions: services.sessions,
        loopback: services.loopback,
        rateLimiter: services.rateLimiter,
        // Spent OAuth records (expired tokens and codes, old revoked families, idle clients) are
        // forgotten a batch at a time, after token and registration requests.
        pruner: new OAuthPruner(db),
      }),
      wellKnownRoutes(),
    );
  },
});
