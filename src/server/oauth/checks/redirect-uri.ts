import { isLoopbackHostname } from '../../../api/oauth/schemas.js';
import type { Client } from '../models/client.js';

/**
 * Whether `uri` is one the client registered: exact match, except that a loopback URI's port may
 * differ (a native app listens on whatever port is free). `wcm-cli` accepts any loopback http URI.
 */
export function redirectAllowed(client: Client, uri: string | undefined): boolean {
  if (!uri) return false;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return false;
  }
  if (u.hash || uri.includes('#') || u.username || u.password) return false;
  const loopback = u.protocol === 'http:' && isLoopbackHostname(u.hostname);
  if (client.builtIn) return loopback;
  return client.redirect_uris.some((r) => {
    if (r === uri) return true;
    if (!loopback) return false;
    const reg = new URL(r);
    return (
      reg.protocol === u.protocol &&
      reg.hostname === u.hostname &&
      reg.pathname === u.pathname &&
      reg.search === u.search
    );
  });
}
