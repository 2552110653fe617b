import type { Register } from '../area.js';
import type { Mount } from '../app.js';
import { ASSETS_PREFIX, assetsMount, faviconMount } from './assets.js';
import { sessionKey, Sessions } from './session.js';
import { isLoopbackHost } from './signin.js';

/**
 * What the server's pages (OAuth consent, dashboard) share: one session store and the /assets
 * mount, which serves the scripts later areas add to `assets`.
 */
export const register: Register = async (s) => {
  // CSRF tokens are HMACs with a key kept in the store (TRUST.md §2).
  s.services.sessions = new Sessions(s.clock, { key: await sessionKey(s.store) });
  // `loopback`: only this machine can connect, so sign-in may offer an account chooser.
  s.services.loopback = isLoopbackHost(s.options.host ?? '127.0.0.1');
  let assets: Mount | undefined;
  // Built at the first request, when every area has added its scripts.
  s.mounts.push(
    { prefix: ASSETS_PREFIX, handle: (req, info, app) => (assets ??= assetsMount(s.assets)).handle(req, info, app) },
    faviconMount(),
  );
};
