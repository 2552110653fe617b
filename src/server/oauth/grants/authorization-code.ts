import type { StoreEngine, WriteTx } from '../../../store/engine/interface.js';
import type { OAuthGrantRecord } from '../../../store/records.js';
import { newSecret } from '../../ids.js';
import { verifierMatches } from '../checks/pkce.js';
import { audienceOf } from '../checks/resource.js';
import { OAuthError } from '../errors.js';
import { issued, putAccessToken, type IssuedTokens } from '../models/access-token.js';
import type { Client } from '../models/client.js';
import { findCode } from '../models/code.js';
import { newRefreshToken, revokeGrantIn, serverKey } from '../models/grant.js';
import { iso, isPast, REFRESH_SECONDS } from '../time.js';

export interface CodeParams {
  code?: string;
  redirect_uri?: string;
  code_verifier?: string;
  resource?: string;
  origin: string;
}

/**
 * `grant_type=authorization_code` inside the request's write: the code becomes a grant, its first
 * access token and refresh token. The code's row is read first, so it is locked until the write
 * ends: of two redemptions at once (in one process, or two on one database) the second reads the
 * code as used, and is refused as a replay. A replay revokes what the first use issued: that
 * revocation is kept, and the refusal is returned (not thrown) for the caller to throw once the
 * write has committed. Every other refusal is thrown and writes nothing.
 */
export async function exchangeCodeIn(
  tx: WriteTx,
  key: Buffer | undefined,
  client: Client,
  p: CodeParams,
): Promise<IssuedTokens | OAuthError> {
  if (!p.code) throw new OAuthError('invalid_request', 'The `code` parameter is missing.');
  if (!p.code_verifier)
    throw new OAuthError('invalid_request', 'The `code_verifier` parameter is missing (PKCE is required).');
  if (!p.redirect_uri) throw new OAuthError('invalid_request', 'The `redirect_uri` parameter is missing.');
  const code = await findCode(tx, p.code);
  if (!code) throw new OAuthError('invalid_grant', 'The authorization code is not recognised.');
  const now = await tx.now();
  if (code.used_at) {
    // A replayed code: someone else may hold it. Revoke what its first use issued.
    const grant = code.grant_id ? await tx.get('oauth_grants', code.grant_id) : undefined;
    if (grant && !grant.revoked_at) await revokeGrantIn(tx, grant, now);
    return new OAuthError(
      'invalid_grant',
      'The authorization code was already used; the tokens issued for it are revoked.',
    );
  }
  if (isPast(now, code.expires_at))
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
  const id = newSecret('grant_').slice(0, 6 + 24);
  const refresh = newRefreshToken(key, id, 0);
  const grant: OAuthGrantRecord = {
    id,
    user_id: code.user_id,
    client_id: code.client_id,
    abilities: code.abilities,
    workspace_ids: code.workspace_ids,
    audience: code.audience,
    refresh_sha256: refresh.sha,
    refresh_expires_at: iso(now, REFRESH_SECONDS),
    refresh_generation: 0,
    created_at: iso(now),
    revoked_at: null,
  };
  await tx.create('oauth_grants', grant);
  await tx.put('oauth_codes', { ...code, used_at: iso(now), grant_id: grant.id });
  const access = await putAccessToken(tx, now, grant, grant.abilities);
  return issued(access, refresh.token, grant.abilities);
}

/** `exchangeCodeIn` as a write of its own; a refusal is thrown. */
export async function exchangeCode(db: StoreEngine, client: Client, p: CodeParams): Promise<IssuedTokens> {
  const key = await serverKey(db);
  const out = await db.write((tx) => exchangeCodeIn(tx, key, client, p));
  if (out instanceof OAuthError) throw out;
  return out;
}
