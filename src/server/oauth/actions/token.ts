import type { AnyOperation } from '../../../contract/operations.js';
import type { App, AppResponse } from '../../app.js';
import type { RequestInfo } from '../../context.js';
import { authenticateClient, triedBasic } from '../checks/client-auth.js';
import { readForm } from '../checks/form.js';
import { OAuthError } from '../errors.js';
import { exchangeCode } from '../grants/authorization-code.js';
import { refreshTokens } from '../grants/refresh-token.js';
import type { OAuthContext } from '../options.js';
import { jsonResponse, oauthError } from '../responses.js';

/** `POST /oauth/token`: the two grant types, each for an authenticated client. */
export async function token(ctx: OAuthContext, info: RequestInfo, app: App): Promise<AppResponse> {
  const { store, clock } = ctx;
  try {
    // Per client address, like public actions (docs/security.md#oauth): guessing codes or secrets is slow.
    await ctx.rateLimiter?.before({ operationId: 'oauthToken' } as AnyOperation, info);
  } catch (err) {
    return app.fail(err, info);
  }
  try {
    const form = readForm(info);
    const client = authenticateClient(store, info, form);
    const origin = info.origin;
    if (form.grant_type === 'authorization_code')
      return jsonResponse(200, await exchangeCode(store, clock, client, { ...form, origin }));
    if (form.grant_type === 'refresh_token')
      return jsonResponse(200, await refreshTokens(store, clock, client, { ...form, origin }));
    throw new OAuthError(
      'unsupported_grant_type',
      form.grant_type
        ? `\`${form.grant_type}\` is not supported: use authorization_code or refresh_token.`
        : 'The `grant_type` parameter is missing.',
    );
  } catch (err) {
    // A Basic challenge only answers a client that tried Basic: a public client has no secret to send.
    if (err instanceof OAuthError)
      return oauthError(err, err.status === 401 && triedBasic(info) ? { 'WWW-Authenticate': 'Basic realm="wcm"' } : {});
    throw err;
  }
}
