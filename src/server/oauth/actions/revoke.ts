import type { ReadTx, WriteTx } from '../../../store/engine/interface.js';
import { hashToken, tokenId } from '../../../store/fixtures/import.js';
import type { AppResponse } from '../../app.js';
import type { RequestInfo } from '../../context.js';
import { authenticateClient, triedBasic } from '../checks/client-auth.js';
import { findClient, type Client } from '../models/client.js';
import { readForm } from '../checks/form.js';
import { OAuthError } from '../errors.js';
import { grantOfRefresh, revokeGrantIn, serverKey } from '../models/grant.js';
import type { OAuthContext } from '../options.js';
import { jsonResponse, oauthError } from '../responses.js';
import { iso } from '../time.js';

/** What a presented token is: an access token (revoked alone) or a refresh token (its whole grant), and whose. */
async function findRevocable(
  tx: ReadTx,
  key: Buffer | undefined,
  token: string,
): Promise<{ clientId: string; revoke(tx: WriteTx, nowMs: number): Promise<unknown> } | undefined> {
  const sha = hashToken(token);
  const access = await tx.get('tokens', tokenId(sha));
  if (access && access.token_sha256 === sha && access.grant_id) {
    // A token that names its grant is its grant's client's; one stored with copies says so itself.
    const clientId = access.client_id ?? (await tx.get('oauth_grants', access.grant_id))?.client_id ?? '';
    return {
      clientId,
      revoke: async (w, nowMs) => {
        if (!access.revoked_at) await w.put('tokens', { ...access, revoked_at: iso(nowMs) });
      },
    };
  }
  const found = await grantOfRefresh(tx, key, token);
  if (found?.current)
    return { clientId: found.grant.client_id, revoke: (w, nowMs) => revokeGrantIn(w, found.grant, nowMs) };
  return undefined;
}

/**
 * RFC 7009 inside the request's write: an access token is revoked alone, a refresh token with its
 * whole authorization. A token that is unknown, not OAuth, or another client's is left alone; the
 * answer is the same. `key` is the server key (`serverKey`). `client` is the authenticated client, or undefined when the request named
 * none: then only a public client's token is revoked (holding it is all a public client can show);
 * a confidential client must authenticate (RFC 7009 §2.1).
 */
export async function revokeTokenIn(
  tx: WriteTx,
  key: Buffer | undefined,
  client: Client | undefined,
  token: string,
): Promise<void> {
  const found = await findRevocable(tx, key, token);
  if (!found) return;
  if (client ? found.clientId !== client.id : (await findClient(tx, found.clientId))?.type === 'confidential') {
    if (!client)
      throw new OAuthError(
        'invalid_client',
        'This token belongs to a confidential client: authenticate it (HTTP Basic or `client_secret`).',
      );
    return;
  }
  await found.revoke(tx, await tx.now());
}

/** `POST /oauth/revoke`: one write authenticates the client (when it names one) and revokes. */
export async function revoke(ctx: OAuthContext, info: RequestInfo): Promise<AppResponse> {
  try {
    const form = readForm(info);
    if (!form.token) throw new OAuthError('invalid_request', 'The `token` parameter is missing.');
    const token = form.token;
    const key = await serverKey(ctx.db);
    await ctx.db.write(async (tx) => {
      const client =
        form.client_id !== undefined || info.headers.authorization
          ? await authenticateClient(tx, info, form)
          : undefined;
      await revokeTokenIn(tx, key, client, token);
    });
    return jsonResponse(200, undefined);
  } catch (err) {
    if (err instanceof OAuthError)
      return oauthError(err, err.status === 401 && triedBasic(info) ? { 'WWW-Authenticate': 'Basic realm="wcm"' } : {});
    throw err;
  }
}
