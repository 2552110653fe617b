import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ReadTx, StoreEngine, WriteTx } from '../../../store/engine/interface.js';
import { hashToken } from '../../../store/fixtures/import.js';
import {
  ACCESS_SECONDS,
  isGrantToken,
  refreshStateFrom,
  type GrantTokenRecord,
  type RefreshState,
} from '../../../store/oauth-tokens.js';
import type { OAuthGrantRecord } from '../../../store/records.js';
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

/** The server key of each store, once read: made once (at the first start) and never changed. */
const serverKeys = new WeakMap<StoreEngine, Buffer>();

/**
 * The server key kept in the store's settings (web/session.ts), if it has been made: refresh
 * tokens' MACs use it.
 * Read outside the request's write and kept once found, so that no write holds the setting's row.
 */
export async function serverKey(db: StoreEngine): Promise<Buffer | undefined> {
  const known = serverKeys.get(db);
  if (known) return known;
  const key = await db.read((tx) => storedServerKey(tx));
  if (key) serverKeys.set(db, key);
  return key;
}

/**
 * The grant's token responses, newest generation first (index `refreshesByGrant`): at most `limit`,
 * and with `generation`, only those of that generation.
 */
async function responses(
  tx: ReadTx,
  grant: OAuthGrantRecord,
  limit: number,
  generation?: number,
): Promise<GrantTokenRecord[]> {
  const range = generation === undefined ? {} : { from: [generation], to: [generation - 1] };
  const { items } = await tx.page('tokens', 'refreshesByGrant', { partition: grant.id, limit, ...range });
  return items.filter(isGrantToken);
}

/**
 * The state of the grant's refresh token, read in `tx`: from its newest token response when it has
 * refreshed, else (never refreshed, revoked, or stored before) the grant's own members.
 */
export async function refreshStateIn(tx: ReadTx, grant: OAuthGrantRecord): Promise<RefreshState> {
  if (grant.revoked_at) return refreshStateFrom(grant, undefined);
  return refreshStateFrom(grant, (await responses(tx, grant, 1))[0]);
}

/**
 * Revokes a grant (and so every token descended from it: the API checks the grant of each OAuth
 * token) at `nowMs`, the write's `tx.now()`. The grant keeps its last generation, so its last
 * refresh token is refused as revoked, and forgets the hash.
 */
export async function revokeGrantIn(tx: WriteTx, grant: OAuthGrantRecord, nowMs: number): Promise<OAuthGrantRecord> {
  if (grant.revoked_at) return grant;
  const { generation, expires_at } = await refreshStateIn(tx, grant);
  return tx.put('oauth_grants', {
    ...grant,
    revoked_at: iso(nowMs),
    refresh_sha256: null,
    refresh_generation: generation,
    refresh_expires_at: expires_at,
  });
}

/** A new refresh token of `grantId` at `generation` (its MAC under the server `key`), and the hash the grant keeps of it. */
export function newRefreshToken(
  key: Buffer | undefined,
  grantId: string,
  generation: number,
): { token: string; sha: string } {
  const grantPart = grantId.slice(GRANT_PREFIX.length);
  const nonce = newSecret('').slice(0, 20);
  const tail = key ? macOf(key, grantPart, generation, nonce) : newSecret('').slice(0, 20);
  const token = `wcm_ort_${grantPart}_${generation}_${nonce}${tail}`;
  return { token, sha: hashToken(token) };
}

/** Whether an earlier generation's token was really issued (its MAC holds); without a server key, assumed. */
function genuine(key: Buffer | undefined, m: RegExpExecArray): boolean {
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
/** The token responses of one generation read at most (a rotation and its retries in the reuse window). */
const GENERATION_READ = 200;

/**
 * Whether a token of the generation before the current one is a retry in the reuse window: the
 * current generation was issued by a refresh less than REUSE_WINDOW_MS before `nowMs` (`tx.now()`).
 */
export async function inReuseWindow(tx: ReadTx, nowMs: number, found: NonNullable<RefreshLookup>): Promise<boolean> {
  if (found.current || !found.previous || found.grant.revoked_at) return false;
  const rotations = await responses(tx, found.grant, GENERATION_READ, found.state.generation);
  if (!rotations.length) return false;
  const rotatedAt = Math.min(...rotations.map((r) => Date.parse(r.expires_at))) - ACCESS_SECONDS * 1000;
  return nowMs - rotatedAt < REUSE_WINDOW_MS;
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
 * The grant a refresh token belongs to, read in `tx` (inside a write its row is then locked, so
 * two refreshes of one grant take turns), and whether it is the current one. An earlier
 * generation is a replay; a token of the current generation with another hash, or a later one, is
 * unknown. Tokens issued before refresh tokens named their grant are found by their hash.
 * `key` is the server key (`serverKey`).
 */
export async function grantOfRefresh(tx: ReadTx, key: Buffer | undefined, token: string): Promise<RefreshLookup> {
  const sha = hashToken(token);
  const m = REFRESH.exec(token);
  if (!m) {
    const grant = await tx.find('oauth_grants', 'oauthGrantsByRefreshSha256', sha);
    if (!grant) return undefined;
    const state = await refreshStateIn(tx, grant);
    return state.sha256 === sha ? { grant, state, current: true } : undefined;
  }
  const grant = await tx.get('oauth_grants', GRANT_PREFIX + m[1]);
  if (!grant) return undefined;
  const state = await refreshStateIn(tx, grant);
  const generation = Number(m[2]);
  if (generation < state.generation)
    return genuine(key, m)
      ? { grant, state, current: false, previous: generation === state.generation - 1 }
      : undefined;
  if (generation === state.generation && state.sha256 === sha) return { grant, state, current: true };
  // A refresh token answered to a retry in the reuse window is as current as the rotation's own.
  if (
    generation === state.generation &&
    !grant.revoked_at &&
    (await responses(tx, grant, GENERATION_READ, generation)).some((r) => r.refresh_sha256 === sha)
  )
    return { grant, state, current: true };
  // A revoked grant forgets its hash: its current token still names it, so it is refused as revoked.
  if (generation === state.generation && grant.revoked_at) return { grant, state, current: true };
  return undefined;
}

/** The grant's newest token response (the one holding its current refresh token), if it refreshed. */
export async function topResponseIn(tx: ReadTx, grant: OAuthGrantRecord): Promise<GrantTokenRecord | undefined> {
  return (await responses(tx, grant, 1))[0];
}
