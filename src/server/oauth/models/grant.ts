import { createHmac, timingSafeEqual } from 'node:crypto';
import { hashToken } from '../../../store/fixture.js';
import {
  ACCESS_SECONDS,
  isGrantToken,
  refreshStateOf,
  type GrantTokenRecord,
  type RefreshState,
} from '../../../store/oauth-tokens.js';
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

/**
 * A retry of the refresh token just rotated, by the same client, within this many milliseconds of the
 * rotation, is answered instead of revoking the family (docs/oauth.md: reuse window): a client that
 * sends several requests at once after its access token expired refreshes with each of them.
 */
export const REUSE_WINDOW_MS = 5_000;

/**
 * The grant's token responses at `generation` (its rotation, and the retries answered in its reuse
 * window), newest first. They top the grant's partition, so this reads only them.
 */
function atGeneration(store: Pick<Store, 'index'>, grant: OAuthGrantRecord, generation: number): GrantTokenRecord[] {
  const out: GrantTokenRecord[] = [];
  for (const { rec } of store.index('refreshesByGrant').entries(grant.id)) {
    if (!isGrantToken(rec) || rec.generation !== generation) break;
    out.push(rec);
  }
  return out;
}

/**
 * Whether a token of the generation before the current one is a retry in the reuse window: the
 * current generation was issued by a refresh less than REUSE_WINDOW_MS ago, by the clock.
 */
export function inReuseWindow(store: Pick<Store, 'index'>, clock: Clock, found: NonNullable<RefreshLookup>): boolean {
  if (found.current || !found.previous || found.grant.revoked_at) return false;
  const rotations = atGeneration(store, found.grant, found.state.generation);
  if (!rotations.length) return false;
  const rotatedAt = Math.min(...rotations.map((r) => Date.parse(r.expires_at))) - ACCESS_SECONDS * 1000;
  return clock.now().getTime() - rotatedAt < REUSE_WINDOW_MS;
}

export type RefreshLookup =
  | {
      grant: OAuthGrantRecord;
      state: RefreshState;
      current: boolean;
      /** An earlier generation that is the one just before the current (a retry, maybe in the reuse window). */
      previous?: boolean;
    }
  | undefined;

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
  if (generation < state.generation)
    return genuine(store, m)
      ? { grant, state, current: false, previous: generation === state.generation - 1 }
      : undefined;
  if (generation === state.generation && state.sha256 === sha) return { grant, state, current: true };
  // A refresh token answered to a retry in the reuse window is as current as the rotation's own.
  if (
    generation === state.generation &&
    !grant.revoked_at &&
    atGeneration(store, grant, generation).some((r) => r.refresh_sha256 === sha)
  )
    return { grant, state, current: true };
  // A revoked grant forgets its hash: its current token still names it, so it is refused as revoked.
  if (generation === state.generation && grant.revoked_at) return { grant, state, current: true };
  return undefined;
}
