import { defineArea } from '../area.js';
import { assetRoutes } from './assets.js';
import { sessionKey, Sessions } from './session.js';
import { isLoopbackHost } from './signin.js';

/**
 * What the server's pages (OAuth consent, dashboard) share: one session store, and /assets, which
 * serves the scripts later areas add to `assets`.
 */
export const webArea = defineArea({
  name: 'web',
  needs: [],
  provides: ['sessions', 'loopback'],
  async register(s) {
    // CSRF tokens are HMACs with a key kept in the store (docs/security.md#signing-in-on-pages).
    // Sessions are records of the store: on a shared database, a sign-in on one process holds on every other.
    s.services.sessions = new Sessions(s.db, { key: await sessionKey(s.db) });
    // `loopback`: only this machine can connect, so sign-in may offer an account chooser.
    s.services.loopback = isLoopbackHost(s.options.host ?? '127.0.0.1');
    // Routes are added when the App is made, after every area has added its scripts.
    s.routes.push((r) => assetRoutes(s.assets)(r));
  },
});
