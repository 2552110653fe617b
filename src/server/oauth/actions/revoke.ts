import { hashToken, tokenId } from '../../../store/fixture.js';
import type { Store, Tx } from '../../../store/store.js';
import type { AppResponse } from '../../app.js';
import type { Clock, RequestInfo } from '../../context.js';
import { authenticateClient, triedBasic } from '../checks/client-auth.js';
import { findClient, type Client } from '../models/client.js';
import { readForm } from '../checks/form.js';
import { OAuthError } from '../errors.js';
import { grantOfRefresh, revokeGrantIn } from '../models/grant.js';
import type { OAuthContext } from '../options.js';
import { jsonResponse, oauthError } from '../responses.js';
import { iso } from '../time.js';

/** What a presented token is: an access token (revoked alone) or a refresh token (its whole grant), and whose. */
function findRevocable(
  store: Store,
  token: string,
): { clientId: string; revoke(tx: Tx, clock: Clock): void } | undefined {
  const sha = hashToken(token);
  const access = store.get('tokens', tokenId(sha));
  if (access && access.token_sha256 === sha && access.grant_id) {
    // A token that names its grant is its grant's client's; one stored with copies says so itself.
    return {
      clientId: access.client_id ?? store.get('oauth_grants', access.grant_id)?.client_id ?? '',
      revoke: (tx, clock) => void (access.revoked_at || tx.put('tokens', { ...access, revoked_at: iso(clock) })),
    };
  }
  const found = grantOfRefresh(store, token);
  if (found?.current)
    return { clientId: found.grant.client_id, revoke: (tx, clock) => revokeGrantIn(tx, store, found.grant, clock) };
  return undefined;
}

/**
 * RFC 7009: an access token is revoked alone, a refresh token with its whole authorization. A token
 * that is unknown, not OAuth, or another client's is left alone; the answer is the same. `client`
 * is the authenticated client, or undefined when the request named none: then only a public
 * client's token is revoked (holding it is all a public client can show); a confidential client
 * must authenticate (RFC 7009 §2.1).
 */
export async function revokeToken(
  store: Store,
  clock: Clock,
  client: Client | undefined,
  token: string,
): Promise<void> {
  const found = findRevocable(store, token);
  if (!found) return;
  if (client ? found.clientId !== client.id : findClient(store, found.clientId)?.type === 'confidential') {
    if (!client)
      throw new OAuthError(
        'invalid_client',
        'This token belongs to a confidential client: authenticate it (HTTP Basic or `client_secret`).',
      );
    return;
  }
  await store.transact((tx) => found.revoke(tx, clock));
}

/** `POST /oauth/revoke`. */
export async function revoke(ctx: OAuthContext, info: RequestInfo): Promise<AppResponse> {
  try {
    const form = readForm(info);
    if (!form.token) throw new OAuthError('invalid_request', 'The `token` parameter is missing.');
    const client =
      form.client_id !== undefined || info.headers.authorization
        ? authenticateClient(ctx.store, info, form)
        : undefined;
    await revokeToken(ctx.store, ctx.clock, client, form.token);
    return jsonResponse(200, undefined);
  } catch (err) {
    if (err instanceof OAuthError)
      return oauthError(err, err.status === 401 && triedBasic(info) ? { 'WWW-Authenticate': 'Basic realm="wcm"' } : {});
    throw err;
  }
}
