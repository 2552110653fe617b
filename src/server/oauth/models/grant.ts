import { createHmac, timingSafeEqual } from 'node:crypto';
import { hashToken } from '../../../store/fixture.js';
import { refreshStateOf, type RefreshState } from '../../../store/oauth-tokens.js';
import type { OAuthGrantRecord } from '../../../store/records.js';
import type { Store, Tx } from '../../../store/store.js';
import type { Clock } from '../../clock.js';
import { newSecret } from '../../ids.js';
import { storedServerKey } from '../../web/session.js';
import { iso } from '../time.js';

const GRANT_PREFIX = 'grant_';
/**
 * `wcm_ort_<grant id's random part>_<generation>_<nonce><mac>`: the token names its grant and generation;
 * its last 20 characters are a MAC of the rest under the server key, so a token of an earlier
 * generation can be recognised as really issued (a replay, which revokes the family) without keeping
 * any of them, and a forged one (someone who knows only the grant id) is merely unknown.
 */
const REFRESH = /^wcm_ort_([A-Za-z0-9]{16,})_(\d{1,15})_([A-Za-z0-9]{20})([A-Za-z0-9]{20})$/;

const macOf = (key: Buffer, grantPart: string, generation: number, nonce: string) =>
  createHmac('sha256', key).update(`${grantPart}.${generation}.${nonce}`).digest('hex').slice(0, 20);

/**
 * Revokes a grant (and so every token descended from it: the API checks the grant of each OAuth
 * token). The grant keeps its last generation, so its last refresh token is refused as revoked,
 * and forgets the hash.
 */
export function revokeGrantIn(tx: Tx, store: Pick<Store, 'index'>, grant: OAuthGrantRecord, clock: Clock): void {
  if (grant.revoked_at) return;
  const { generation, expires_at } = refreshStateOf(store, grant);
  tx.put('oauth_grants', {
    ...grant,
    revoked_at: iso(clock),
    refresh_sha256: null,
    refresh_generation: generation,
    refresh_expires_at: expires_at,
  });
}

/** A new refresh token of `grantId` at `generation`, and the hash the grant keeps of it. */
export function newRefreshToken(
  store: Pick<Store, 'get'>,
  grantId: string,
  generation: number,
): { token: string; sha: string } {
  const grantPart = grantId.slice(GRANT_PREFIX.length);
  const nonce = newSecret('').slice(0, 20);
  const key = storedServerKey(store);
  const tail = key ? macOf(key, grantPart, generation, nonce) : newSecret('').slice(0, 20);
  const token = `wcm_ort_${grantPart}_${generation}_${nonce}${tail}`;
  return { token, sha: hashToken(token) };
}

/** Whether an earlier generation's token was really issued (its MAC holds); without a server key, assumed. */
function genuine(store: Pick<Store, 'get'>, m: RegExpExecArray): boolean {
  const key = storedServerKey(store);
  if (!key) return true;
  const want = Buffer.from(macOf(key, m[1], Number(m[2]), m[3]));
  const got = Buffer.from(m[4]);
  return want.length === got.length && timingSafeEqual(want, got);
}

export type RefreshLookup = { grant: OAuthGrantRecord; state: RefreshState; current: boolean } | undefined;

/**
 * The grant a refresh token belongs to, and whether it is the current one. An earlier generation
 * is a replay; a token of the current generation with another hash, or a later one, is unknown.
 * Tokens issued before refresh tokens named their grant are found by their hash.
 */
export function grantOfRefresh(store: Store, token: string): RefreshLookup {
  const sha = hashToken(token);
  const m = REFRESH.exec(token);
  if (!m) {
    for (const grant of store.values('oauth_grants')) {
      const state = refreshStateOf(store, grant);
      if (state.sha256 === sha) return { grant, state, current: true };
    }
    return undefined;
  }
  const grant = store.get('oauth_grants', GRANT_PREFIX + m[1]);
  if (!grant) return undefined;
  const state = refreshStateOf(store, grant);
  const generation = Number(m[2]);
  if (generation < state.generation) return genuine(store, m) ? { grant, state, current: false } : undefined;
  if (generation === state.generation && state.sha256 === sha) return { grant, state, current: true };
  // A revoked grant forgets its hash: its current token still names it, so it is refused as revoked.
  if (generation === state.generation && grant.revoked_at) return { grant, state, current: true };
  return undefined;
}
