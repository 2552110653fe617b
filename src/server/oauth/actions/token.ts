import type { AnyOperation } from '../../../contract/operations.js';
import type { App, AppResponse } from '../../app.js';
import type { RequestInfo } from '../../context.js';
import { authenticateClient, triedBasic } from '../checks/client-auth.js';
import { readForm } from '../checks/form.js';
import { OAuthError } from '../errors.js';
import { exchangeCodeIn } from '../grants/authorization-code.js';
import { refreshTokensIn } from '../grants/refresh-token.js';
import { serverKey } from '../models/grant.js';
import type { OAuthContext } from '../options.js';
import { jsonResponse, oauthError } from '../responses.js';

/** `POST /oauth/token`: the two grant types, each for an authenticated client. */
export async function token(ctx: OAuthContext, info: RequestInfo, app: App): Promise<AppResponse> {
  try {
    // Per client address, like public actions (docs/security.md#oauth): guessing codes or secrets is slow.
    await ctx.rateLimiter?.before({ operationId: 'oauthToken' } as AnyOperation, info);
  } catch (err) {
    return app.fail(err, info);
  }
  try {
    const form = readForm(info);
    const origin = info.origin;
    // One write: the client, the code or refresh token, and what is issued for it.
    const key = await serverKey(ctx.db);
    const out = await ctx.db.write(async (tx) => {
      const client = await authenticateClient(tx, info, form);
      if (form.grant_type === 'authorization_code') return exchangeCodeIn(tx, key, client, { ...form, origin });
      if (form.grant_type === 'refresh_token') return refreshTokensIn(tx, key, client, { ...form, origin });
      throw new OAuthError(
        'unsupported_grant_type',
        form.grant_type
          ? `\`${form.grant_type}\` is not supported: use authorization_code or refresh_token.`
          : 'The `grant_type` parameter is missing.',
      );
    });
    ctx.pruner?.poke();
    if (out instanceof OAuthError) throw out;
    return jsonResponse(200, out);
  } catch (err) {
    // A Basic challenge only answers a client that tried Basic: a public client has no secret to send.
    if (err instanceof OAuthError)
      return oauthError(err, err.status === 401 && triedBasic(info) ? { 'WWW-Authenticate': 'Basic realm="wcm"' } : {});
    throw err;
  }
}
