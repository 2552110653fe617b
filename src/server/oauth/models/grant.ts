import type { OAuthGrantRecord } from '../../../store/records.js';
import type { Store, Tx } from '../../../store/store.js';
import type { Clock } from '../../context.js';
import { iso } from '../time.js';

/** Revokes a grant (and so every token descended from it: the API checks the grant of each OAuth token). */
export function revokeGrantIn(tx: Tx, grant: OAuthGrantRecord, clock: Clock): void {
  if (!grant.revoked_at) tx.put('oauth_grants', { ...grant, revoked_at: iso(clock), refresh_sha256: null });
}

/** The grant whose current or earlier refresh token this is. Grants are few: a scan is fine. */
export function grantOfRefresh(store: Store, sha: string): { grant: OAuthGrantRecord; current: boolean } | undefined {
  for (const g of store.values('oauth_grants')) {
    if (g.refresh_sha256 === sha) return { grant: g, current: true };
    if (g.used_refresh_sha256.includes(sha)) return { grant: g, current: false };
  }
  return undefined;
}
