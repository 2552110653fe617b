/*
 * OAuth access tokens as stored since a refresh had to stay small (docs/security.md#oauth), and the refresh
 * state they carry. The `tokens` collection holds both shapes: TokenRecord (personal tokens, and
 * OAuth tokens stored with copies of their grant) and GrantTokenRecord.
 */
import type { IndexDef } from './sorted-index.js';
import type { GrantTokenRecord, OAuthGrantRecord, StoredToken, TokenRecord } from './records.js';

export type { GrantTokenRecord, StoredToken };

/** OAuth lifetimes: access tokens 1 h, refresh tokens 30 days (a token response's refresh expiry is derived). */
export const ACCESS_SECONDS = 3600;
export const REFRESH_SECONDS = 30 * 24 * 3600;

/**
 * A grant's token responses since its first refresh, newest first: the first holds the current
 * refresh token. Other tokens are in no partition; their key ties, so the order tokens are listed
 * and written in stays as it was.
 */
export const refreshesByGrant: IndexDef<'tokens'> = {
  name: 'refreshesByGrant',
  collection: 'tokens',
  partition: (r) => r.grant_id ?? '',
  partitions: (r) => (isGrantToken(r) && r.generation !== undefined ? [r.grant_id] : []),
  key: (r) => [isGrantToken(r) ? (r.generation ?? null) : null],
  order: 'desc',
};

/** A grant's current refresh token: its generation, hash and expiry. */
export interface RefreshState {
  generation: number;
  sha256: string | null;
  expires_at: string | null;
}

/**
 * The state of the grant's refresh token: from its newest token response when it has refreshed
 * (GrantTokenRecord), else (never refreshed, revoked, or stored before) the grant's own members.
 */
/** What refreshStateOf reads of a store (typed here: the store's modules import this one). */
interface RefreshIndex {
  index(name: 'refreshesByGrant'): { entries(partition: string): ReadonlyArray<{ rec: StoredToken }> };
}

export function refreshStateOf(store: RefreshIndex, grant: OAuthGrantRecord): RefreshState {
  return refreshStateFrom(
    grant,
    grant.revoked_at ? undefined : store.index('refreshesByGrant').entries(grant.id)[0]?.rec,
  );
}

/** The state of the grant's refresh token, given its newest token response (`refreshesByGrant`'s first), if any. */
export function refreshStateFrom(grant: OAuthGrantRecord, top: StoredToken | undefined): RefreshState {
  if (!grant.revoked_at && top && isGrantToken(top) && top.generation !== undefined && top.refresh_sha256) {
    const expires = Date.parse(top.expires_at) + (REFRESH_SECONDS - ACCESS_SECONDS) * 1000;
    return { generation: top.generation, sha256: top.refresh_sha256, expires_at: new Date(expires).toISOString() };
  }
  return { generation: grant.refresh_generation, sha256: grant.refresh_sha256, expires_at: grant.refresh_expires_at };
}
export const isGrantToken = (rec: StoredToken): rec is GrantTokenRecord => rec.user_id === undefined;
/** A grant token with its grant's members: the shape tokens had before they named it, and the one fixtures hold. */
export const withGrant = (rec: GrantTokenRecord, grant: OAuthGrantRecord, name: string): TokenRecord => ({
  id: rec.id,
  token_sha256: rec.token_sha256,
  user_id: grant.user_id,
  name,
  abilities: rec.abilities ?? grant.abilities,
  expires_at: rec.expires_at,
  revoked_at: rec.revoked_at ?? null,
  audience: grant.audience,
  workspace_ids: grant.workspace_ids,
  grant_id: grant.id,
  client_id: grant.client_id,
});
