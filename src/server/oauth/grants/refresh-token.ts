import type { Ability } from '../../../contract/enums.js';
import type { OAuthGrantRecord } from '../../../store/records.js';
import type { Store } from '../../../store/store.js';
import type { Clock } from '../../clock.js';
import { audienceOf } from '../checks/resource.js';
import { parseScope } from '../checks/scope.js';
import { OAuthError } from '../errors.js';
import { issued, putAccessToken, type IssuedTokens } from '../models/access-token.js';
import type { Client } from '../models/client.js';
import { grantOfRefresh, inReuseWindow, newRefreshToken, revokeGrantIn } from '../models/grant.js';
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
 * `grant_type=refresh_token`: rotation, and reuse detection that revokes the family. A retry of the
 * token just rotated, by the same client within REUSE_WINDOW_MS of the rotation, is not a theft: it
 * gets a fresh pair of the family, its refresh token of the current generation (docs/oauth.md).
 */
export async function refreshTokens(
  store: Store,
  clock: Clock,
  client: Client,
  p: RefreshParams,
): Promise<IssuedTokens> {
  if (!p.refresh_token) throw new OAuthError('invalid_request', 'The `refresh_token` parameter is missing.');
  const found = grantOfRefresh(store, p.refresh_token);
  if (!found) throw new OAuthError('invalid_grant', 'The refresh token is not recognised.');
  const { grant, state } = found;
  if (grant.client_id !== client.id)
    throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
  if (grant.revoked_at) throw new OAuthError('invalid_grant', 'The refresh token has been revoked.');
  if (!found.current && !inReuseWindow(store, clock, found)) {
    await store.transact((tx) => revokeGrantIn(tx, store, grant, clock));
    throw new OAuthError(
      'invalid_grant',
      'The refresh token was already used; every token of this authorization is now revoked.',
    );
  }
  if (state.expires_at && isPast(clock, state.expires_at)) {
    throw new OAuthError('invalid_grant', 'The refresh token has expired (they live 30 days).');
  }
  if (p.resource !== undefined && audienceOf(p.resource, p.origin) !== grant.audience) {
    throw new OAuthError('invalid_target', 'The `resource` differs from the one this authorization was granted for.');
  }
  const abilities = narrowed(grant, p.scope);
  let access = '';
  let refresh = '';
  await store.transact((tx) => {
    // Decided again where it is written: of two refreshes of one token at once (in one process, or
    // two on one database), the first to write rotates it; the other finds it just rotated, which is
    // the reuse window's retry, answered at the current generation.
    const now = grantOfRefresh(store, p.refresh_token!);
    let generation: number;
    if (now?.current && !now.grant.revoked_at) generation = now.state.generation + 1;
    else if (now && inReuseWindow(store, clock, now)) generation = now.state.generation;
    else throw new OAuthError('invalid_grant', 'The refresh token was already used.');
    const next = newRefreshToken(store, grant.id, generation);
    access = putAccessToken(tx, clock, now.grant, abilities, { generation, refresh_sha256: next.sha });
    refresh = next.token;
  });
  return issued(access, refresh, abilities);
}
