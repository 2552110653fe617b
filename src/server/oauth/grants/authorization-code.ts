import type { OAuthCodeRecord, OAuthGrantRecord } from '../../../store/records.js';
import type { Store } from '../../../store/store.js';
import type { Clock } from '../../clock.js';
import { newSecret } from '../../ids.js';
import { verifierMatches } from '../checks/pkce.js';
import { audienceOf } from '../checks/resource.js';
import { OAuthError } from '../errors.js';
import { issued, putAccessToken, type IssuedTokens } from '../models/access-token.js';
import type { Client } from '../models/client.js';
import { findCode } from '../models/code.js';
import { newRefreshToken, revokeGrantIn } from '../models/grant.js';
import { iso, isPast, REFRESH_SECONDS } from '../time.js';

export interface CodeParams {
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  resource?: string;
  origin: string;
}

/** The stored code these parameters redeem, or the error that refuses them (a replay revokes its grant). */
async function redeemable(store: Store, clock: Clock, client: Client, p: CodeParams): Promise<OAuthCodeRecord> {
  if (!p.code) throw new OAuthError('invalid_request', 'The `code` parameter is missing.');
  if (!p.code_verifier)
    throw new OAuthError('invalid_request', 'The `code_verifier` parameter is missing (PKCE is required).');
  if (!p.redirect_uri) throw new OAuthError('invalid_request', 'The `redirect_uri` parameter is missing.');
  const code = findCode(store, p.code);
  if (!code) throw new OAuthError('invalid_grant', 'The authorization code is not recognised.');
  if (code.used_at) {
    // A replayed code: someone else may hold it. Revoke what its first use issued.
    const grant = code.grant_id ? store.get('oauth_grants', code.grant_id) : undefined;
    if (grant && !grant.revoked_at) await store.transact((tx) => revokeGrantIn(tx, store, grant, clock));
    throw new OAuthError(
      'invalid_grant',
      'The authorization code was already used; the tokens issued for it are revoked.',
    );
  }
  if (isPast(clock, code.expires_at))
    throw new OAuthError('invalid_grant', 'The authorization code has expired (codes live 60 seconds).');
  if (code.client_id !== client.id)
    throw new OAuthError('invalid_grant', 'The authorization code was issued to another client.');
  if (code.redirect_uri !== p.redirect_uri)
    throw new OAuthError('invalid_grant', 'The `redirect_uri` differs from the one of the authorization request.');
  if (!verifierMatches(p.code_verifier, code.code_challenge))
    throw new OAuthError('invalid_grant', 'The `code_verifier` does not match the code challenge.');
  if (p.resource !== undefined && audienceOf(p.resource, p.origin) !== code.audience) {
    throw new OAuthError('invalid_target', 'The `resource` differs from the one of the authorization request.');
  }
  return code;
}

/** `grant_type=authorization_code`: the code becomes a grant, its first access token and refresh token. */
export async function exchangeCode(store: Store, clock: Clock, client: Client, p: CodeParams): Promise<IssuedTokens> {
  const code = await redeemable(store, clock, client, p);
  const id = newSecret('grant_').slice(0, 6 + 24);
  const refresh = newRefreshToken(store, id, 0);
  const grant: OAuthGrantRecord = {
    id,
    user_id: code.user_id,
    client_id: code.client_id,
    abilities: code.abilities,
    workspace_ids: code.workspace_ids,
    audience: code.audience,
    refresh_sha256: refresh.sha,
    refresh_expires_at: iso(clock, REFRESH_SECONDS),
    refresh_generation: 0,
    created_at: iso(clock),
    revoked_at: null,
  };
  let access = '';
  await store.transact((tx) => {
    // Checked again where it is written: two redemptions at once (two processes on one database)
    // both passed the check above, and only the first to write may win.
    if (tx.get('oauth_codes', code.id)?.used_at)
      throw new OAuthError('invalid_grant', 'The authorization code was already used.');
    tx.put('oauth_grants', grant);
    tx.put('oauth_codes', { ...code, used_at: iso(clock), grant_id: grant.id });
    access = putAccessToken(tx, clock, grant, grant.abilities);
  });
  return issued(access, refresh.token, grant.abilities);
}
