import { hashToken } from '../../../store/fixture.js';
import type { OAuthGrantRecord } from '../../../store/records.js';
import type { Store, Tx } from '../../../store/store.js';
import type { Clock } from '../../context.js';
import { newSecret } from '../../ids.js';
import { iso } from '../time.js';

const GRANT_PREFIX = 'grant_';
/** `wcm_ort_<grant id's random part>_<generation>_<secret>`: the token names its grant and generation. */
const REFRESH = /^wcm_ort_([A-Za-z0-9]{16,})_(\d{1,15})_[A-Za-z0-9]{40}$/;

/** Revokes a grant (and so every token descended from it: the API checks the grant of each OAuth token). */
export function revokeGrantIn(tx: Tx, grant: OAuthGrantRecord, clock: Clock): void {
  if (!grant.revoked_at) tx.put('oauth_grants', { ...grant, revoked_at: iso(clock), refresh_sha256: null });
}

/** A new refresh token of `grantId` at `generation`, and the hash the grant keeps of it. */
export function newRefreshToken(grantId: string, generation: number): { token: string; sha: string } {
  const token = newSecret(`wcm_ort_${grantId.slice(GRANT_PREFIX.length)}_${generation}_`);
  return { token, sha: hashToken(token) };
}

export type RefreshLookup =
  { grant: OAuthGrantRecord; current: true } | { grant: OAuthGrantRecord; current: false } | undefined;

/**
 * The grant a refresh token belongs to, and whether it is the current one. An earlier generation
 * is a replay; a token of the current generation with another hash, or a later one, is unknown.
 * Tokens issued before refresh tokens named their grant are found by their hash.
 */
export function grantOfRefresh(store: Store, token: string): RefreshLookup {
  const sha = hashToken(token);
  const m = REFRESH.exec(token);
  if (!m) {
    for (const g of store.values('oauth_grants')) if (g.refresh_sha256 === sha) return { grant: g, current: true };
    return undefined;
  }
  const grant = store.get('oauth_grants', GRANT_PREFIX + m[1]);
  if (!grant) return undefined;
  const generation = Number(m[2]);
  if (generation < grant.refresh_generation) return { grant, current: false };
  if (generation === grant.refresh_generation && grant.refresh_sha256 === sha) return { grant, current: true };
  // A revoked grant forgets its hash: its current token still names it, so it is refused as revoked.
  if (generation === grant.refresh_generation && grant.revoked_at) return { grant, current: true };
  return undefined;
}
