import type { Ability } from '../../../contract/enums.js';
import type { StoreEngine, WriteTx } from '../../../store/engine/interface.js';
import type { OAuthGrantRecord } from '../../../store/records.js';
import { audienceOf } from '../checks/resource.js';
import { parseScope } from '../checks/scope.js';
import { OAuthError } from '../errors.js';
import { issued, putAccessToken, type IssuedTokens } from '../models/access-token.js';
import type { Client } from '../models/client.js';
import { grantOfRefresh, inReuseWindow, newRefreshToken, revokeGrantIn, serverKey } from '../models/grant.js';
import { isPast } from '../time.js';

export interface RefreshParams {
  refresh_token?: string;
  scope?: string;
  resource?: string;
  origin: string;
}

/** The abilities of the new access token: the grant's, or a narrower `scope`. */
function narrowed(grant: OAuthGrantRecord, scope: string | undefined): Ability[] {
  if (scope === undefined || scope.trim() === '') return grant.abilities;
  const asked = parseScope(scope);
  if (!asked || asked.some((a) => !grant.abilities.includes(a))) {
    throw new OAuthError('invalid_scope', `The scope may only narrow what was granted: ${grant.abilities.join(' ')}.`);
  }
  return asked;
}

/**
 * `grant_type=refresh_token` inside the request's write: rotation, and reuse detection that
 * revokes the family. A retry of the token just rotated, by the same client within
 * REUSE_WINDOW_MS of the rotation, is not a theft: it gets a fresh pair of the family, its refresh
 * token of the current generation (docs/oauth.md). The grant's row is read first, so refreshes of
 * one grant take turns (in one process, or two on one database): of two refreshes of one token at
 * once, the first rotates it and the second finds it just rotated, a retry in the reuse window.
 * A replay's revocation is kept and its refusal returned, for the caller to throw after the write.
 */
export async function refreshTokensIn(
  tx: WriteTx,
  key: Buffer | undefined,
  client: Client,
  p: RefreshParams,
): Promise<IssuedTokens | OAuthError> {
  if (!p.refresh_token) throw new OAuthError('invalid_request', 'The `refresh_token` parameter is missing.');
  const found = await grantOfRefresh(tx, key, p.refresh_token);
  if (!found) throw new OAuthError('invalid_grant', 'The refresh token is not recognised.');
  const { grant, state } = found;
  if (grant.client_id !== client.id)
    throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
  if (grant.revoked_at) throw new OAuthError('invalid_grant', 'The refresh token has been revoked.');
  const now = await tx.now();
  if (!found.current && !(await inReuseWindow(tx, now, found))) {
    await revokeGrantIn(tx, grant, now);
    return new OAuthError(
      'invalid_grant',
      'The refresh token was already used; every token of this authorization is now revoked.',
    );
  }
  if (state.expires_at && isPast(now, state.expires_at)) {
    throw new OAuthError('invalid_grant', 'The refresh token has expired (they live 30 days).');
  }
  if (p.resource !== undefined && audienceOf(p.resource, p.origin) !== grant.audience) {
    throw new OAuthError('invalid_target', 'The `resource` differs from the one this authorization was granted for.');
  }
  const abilities = narrowed(grant, p.scope);
  // The current token rotates to the next generation; a retry in the reuse window is answered at the current one.
  const generation = found.current ? state.generation + 1 : state.generation;
  const next = newRefreshToken(key, grant.id, generation);
  const access = await putAccessToken(tx, now, grant, abilities, { generation, refresh_sha256: next.sha });
  return issued(access, next.token, abilities);
}

/** `refreshTokensIn` as a write of its own; a refusal is thrown. */
export async function refreshTokens(db: StoreEngine, client: Client, p: RefreshParams): Promise<IssuedTokens> {
  const key = await serverKey(db);
  const out = await db.write((tx) => refreshTokensIn(tx, key, client, p));
  if (out instanceof OAuthError) throw out;
  return out;
}
