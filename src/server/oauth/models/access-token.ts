import type { Ability } from '../../../contract/enums.js';
import { hashToken, tokenId } from '../../../store/fixture.js';
import { isGrantToken, withGrant, type GrantTokenRecord, type StoredToken } from '../../../store/oauth-tokens.js';
import type { OAuthGrantRecord, TokenRecord } from '../../../store/records.js';
import type { Store, Tx } from '../../../store/store.js';
import type { Clock } from '../../clock.js';
import { newSecret } from '../../ids.js';
import { ACCESS_SECONDS, iso } from '../time.js';
import { findClient } from './client.js';

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * Stores a new access token of `grant` (narrowed to `abilities`) and returns it. The record names
 * its grant and copies nothing of it: a refresh writes it, with the refresh token issued beside it,
 * and docs/security.md#oauth wants a refresh small.
 */
export function putAccessToken(
  tx: Tx,
  clock: Clock,
  grant: OAuthGrantRecord,
  abilities: Ability[],
  refresh?: { generation: number; refresh_sha256: string },
): string {
  const token = newSecret('wcm_oat_');
  const sha = hashToken(token);
  const narrowed = grant.abilities.some((a) => !abilities.includes(a));
  const rec: GrantTokenRecord = {
    id: tokenId(sha),
    token_sha256: sha,
    grant_id: grant.id,
    expires_at: iso(clock, ACCESS_SECONDS),
    ...(narrowed ? { abilities } : {}),
    ...refresh,
  };
  tx.put('tokens', rec);
  return token;
}

/**
 * A grant token as the full record the API reads, built once per stored record: records are
 * replaced, never changed, and what it takes from its grant (user, client, audience, workspaces,
 * abilities) is fixed when the grant is made; whether the grant is still live is checked apart.
 */
const views = new WeakMap<GrantTokenRecord, TokenRecord>();
function grantTokenView(store: Store, rec: GrantTokenRecord, grant: OAuthGrantRecord): TokenRecord {
  let view = views.get(rec);
  if (!view)
    views.set(rec, (view = withGrant(rec, grant, findClient(store, grant.client_id)?.name ?? grant.client_id)));
  return view;
}

/**
 * A stored token as a full record, or undefined when it belongs to a grant that is revoked or gone
 * (revoking a grant ends its tokens at once). Tokens that kept copies of their grant (stored before
 * they named it) come back as they are.
 */
export function tokenRecordOf(store: Store, rec: StoredToken): TokenRecord | undefined {
  if (!rec.grant_id) return isGrantToken(rec) ? undefined : rec;
  const grant = store.get('oauth_grants', rec.grant_id);
  if (!grant || grant.revoked_at) return undefined;
  return isGrantToken(rec) ? grantTokenView(store, rec, grant) : rec;
}

/** The token endpoint's answer. */
export const issued = (access: string, refresh: string, abilities: Ability[]): IssuedTokens => ({
  access_token: access,
  token_type: 'Bearer',
  expires_in: ACCESS_SECONDS,
  refresh_token: refresh,
  scope: abilities.join(' '),
});
