import type { Tx } from '../../../store/store.js';
import type { StoreView } from '../../../store/view.js';
import { refreshStateOf } from '../../../store/oauth-tokens.js';
import { REFRESH_SECONDS } from '../time.js';

const DAY_MS = 24 * 3600 * 1000;
/** A revoked family is kept a week (the user sees it in their grants), then removed. */
export const REVOKED_KEEP_MS = 7 * DAY_MS;
/** A self-registered client nobody used for 30 days is removed (docs/security.md#oauth). */
export const UNUSED_CLIENT_MS = 30 * DAY_MS;

const before = (at: string | null | undefined, t: number) => !!at && Date.parse(at) < t;

/** The id of the grant's newest token response (the one holding its current refresh token), if it refreshed. */
const currentResponse = (store: StoreView, grantId: string) =>
  store.index('refreshesByGrant').entries(grantId)[0]?.rec.id;

/**
 * What compaction may forget of OAuth (docs/security.md#oauth): expired access tokens, expired codes (used or
 * not: a code is refused after 60 s either way), families revoked more than a week ago, and
 * self-registered clients unused for 30 days. An expired access token whose record holds a live
 * grant's current refresh token stays. A grant's last use is its last refresh (the refresh token's
 * expiry, 30 days on), so tracking use costs no write.
 */
export function pruneOAuth(tx: Tx, store: StoreView, now: Date): void {
  const t = now.getTime();
  const lastUse = new Map<string, number>();
  for (const g of store.values('oauth_grants')) {
    if (before(g.revoked_at, t - REVOKED_KEEP_MS)) tx.delete('oauth_grants', g.id);
    const refreshExpires = refreshStateOf(store, g).expires_at;
    const used = Math.max(
      Date.parse(g.created_at),
      refreshExpires ? Date.parse(refreshExpires) - REFRESH_SECONDS * 1000 : 0,
    );
    lastUse.set(g.client_id, Math.max(lastUse.get(g.client_id) ?? 0, used));
  }
  for (const tok of store.values('tokens')) {
    if (!tok.grant_id) continue;
    const grant = tx.get('oauth_grants', tok.grant_id);
    // An expired access token goes, unless its record holds the live grant's current refresh token.
    const current = grant && !grant.revoked_at && currentResponse(store, grant.id) === tok.id;
    if (!grant || (before(tok.expires_at, t) && !current)) tx.delete('tokens', tok.id);
  }
  for (const c of store.values('oauth_codes')) if (before(c.expires_at, t)) tx.delete('oauth_codes', c.id);
  for (const app of store.values('oauth_apps')) {
    if (app.workspace_id !== null) continue;
    if (Math.max(Date.parse(app.created_at), lastUse.get(app.id) ?? 0) < t - UNUSED_CLIENT_MS)
      tx.delete('oauth_apps', app.id);
  }
}
