import { hashToken, tokenId } from '../../../store/fixture.js';
import type { Store } from '../../../store/store.js';
import type { AppResponse } from '../../app.js';
import type { Clock, RequestInfo } from '../../context.js';
import { authenticateClient } from '../checks/client-auth.js';
import { readForm } from '../checks/form.js';
import { OAuthError } from '../errors.js';
import { grantOfRefresh, revokeGrantIn } from '../models/grant.js';
import type { OAuthContext } from '../options.js';
import { jsonResponse, oauthError, postOnly } from '../responses.js';
import { iso } from '../time.js';

/**
 * RFC 7009: an access token is revoked alone, a refresh token with its whole authorization. A
 * token that is unknown, not OAuth, or another client's is left alone; the answer is the same.
 */
export async function revokeToken(store: Store, clock: Clock, clientId: string | undefined, token: string): Promise<void> {
  const sha = hashToken(token);
  const access = store.get('tokens', tokenId(sha));
  if (access && access.token_sha256 === sha && access.grant_id) {
    if (clientId && access.client_id !== clientId) return;
    if (!access.revoked_at) await store.transact((tx) => tx.put('tokens', { ...access, revoked_at: iso(clock) }));
    return;
  }
  const found = grantOfRefresh(store, token);
  if (found?.current && (!clientId || found.grant.client_id === clientId)) await store.transact((tx) => revokeGrantIn(tx, found.grant, clock));
}

/** `POST /oauth/revoke`. */
export async function revoke(ctx: OAuthContext, info: RequestInfo): Promise<AppResponse> {
  if (info.method !== 'POST') return postOnly('revocation');
  try {
    const form = readForm(info);
    if (!form.token) throw new OAuthError('invalid_request', 'The `token` parameter is missing.');
    const client = form.client_id !== undefined || info.headers.authorization ? authenticateClient(ctx.store, info, form) : undefined;
    await revokeToken(ctx.store, ctx.clock, client?.id, form.token);
    return jsonResponse(200, undefined);
  } catch (err) {
    if (err instanceof OAuthError) return oauthError(err);
    throw err;
  }
}
