import type { Routes } from '../app.js';
import { ANY } from '../router.js';
import { messagePage } from '../web/html.js';
import { signIn } from '../web/signin.js';
import { authorize } from './actions/authorize.js';
import { decide } from './actions/consent.js';
import { register } from './actions/register.js';
import { revoke } from './actions/revoke.js';
import { token } from './actions/token.js';
import type { OAuthContext, OAuthOptions } from './options.js';
import { OAUTH, postOnly } from './responses.js';

export { wellKnownRoutes } from './actions/metadata.js';
export { OAUTH } from './responses.js';
export type { OAuthOptions } from './options.js';

/** `/oauth/…`: authorize (sign-in and consent pages), token, revoke and dynamic registration. */
export function oauthRoutes(options: OAuthOptions): Routes {
  const auth = signIn({
    prefix: OAUTH,
    loopback: options.loopback,
    sessions: options.sessions,
    purpose: 'to authorize an application to use your account.',
  });
  const ctx: OAuthContext = { ...options, auth };
  return (r) => {
    auth.routes(r);
    r.on(['GET', 'HEAD'], `${OAUTH}/authorize`, ({ req, info }) => authorize(ctx, req, info))
      .on('POST', `${OAUTH}/authorize`, ({ req, info }) => decide(ctx, req, info))
      .on(ANY, `${OAUTH}/authorize`, () =>
        messagePage(405, 'Method not allowed', 'The authorization endpoint answers GET and POST.', {
          headers: { Allow: 'GET, HEAD, POST' },
        }),
      )
      .on('POST', `${OAUTH}/token`, ({ info, app }) => token(ctx, info, app))
      .on(ANY, `${OAUTH}/token`, () => postOnly('token'))
      .on('POST', `${OAUTH}/revoke`, ({ info }) => revoke(ctx, info))
      .on(ANY, `${OAUTH}/revoke`, () => postOnly('revocation'))
      .on('POST', `${OAUTH}/register`, ({ info, app }) => register(ctx, info, app))
      .on(ANY, `${OAUTH}/register`, () => postOnly('registration'))
      .mount(OAUTH, () =>
        messagePage(
          404,
          'Not found',
          'There is no page here. OAuth clients begin with the authorization endpoint, /oauth/authorize (see /.well-known/oauth-authorization-server).',
        ),
      );
  };
}
