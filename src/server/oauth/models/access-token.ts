import type { Ability } from '../../../contract/enums.js';
import { hashToken, tokenId } from '../../../store/fixture.js';
import type { OAuthGrantRecord, TokenRecord } from '../../../store/records.js';
import type { Tx } from '../../../store/store.js';
import type { Clock } from '../../context.js';
import { newSecret } from '../../ids.js';
import { ACCESS_SECONDS, iso } from '../time.js';

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** Stores a new access token of `grant` (narrowed to `abilities`) and returns it. */
export function putAccessToken(
  tx: Tx,
  clock: Clock,
  grant: OAuthGrantRecord,
  abilities: Ability[],
  appName: string,
): string {
  const token = newSecret('wcm_oat_');
  const sha = hashToken(token);
  const rec: TokenRecord = {
    id: tokenId(sha),
    token_sha256: sha,
    user_id: grant.user_id,
    name: appName,
    abilities,
    expires_at: iso(clock, ACCESS_SECONDS),
    revoked_at: null,
    audience: grant.audience,
    workspace_ids: grant.workspace_ids,
    grant_id: grant.id,
    client_id: grant.client_id,
  };
  tx.put('tokens', rec);
  return token;
}

/** The token endpoint's answer. */
export const issued = (access: string, refresh: string, abilities: Ability[]): IssuedTokens => ({
  access_token: access,
  token_type: 'Bearer',
  expires_in: ACCESS_SECONDS,
  refresh_token: refresh,
  scope: abilities.join(' '),
});
