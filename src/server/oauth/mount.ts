import type { Mount } from '../app.js';
import { messagePage } from '../web/html.js';
import { signIn } from '../web/signin.js';
import { authorize } from './actions/authorize.js';
import { register } from './actions/register.js';
import { revoke } from './actions/revoke.js';
import { token } from './actions/token.js';
import type { OAuthContext, OAuthOptions } from './options.js';
import { OAUTH } from './responses.js';

export { wellKnownMount } from './actions/metadata.js';
export { OAUTH } from './responses.js';
export type { OAuthOptions } from './options.js';

/** `/oauth/…`: authorize (sign-in and consent pages), token, revoke and dynamic registration. */
export function oauthMount(options: OAuthOptions): Mount {
  const auth = signIn({
    prefix: OAUTH,
    loopback: options.loopback,
    store: options.store,
    sessions: options.sessions,
    clock: options.clock,
    purpose: 'to authorize an application to use your account.',
  });
  const ctx: OAuthContext = { ...options, auth };
  return {
    prefix: OAUTH,
    async handle(req, info, app) {
      const own = await auth.handle(req, info);
      if (own) return own;
      switch (info.path) {
        case `${OAUTH}/authorize`:
          return authorize(ctx, req, info);
        case `${OAUTH}/token`:
          return token(ctx, info, app);
        case `${OAUTH}/revoke`:
          return revoke(ctx, info);
        case `${OAUTH}/register`:
          return register(ctx, info, app);
        default:
          return messagePage(
            404,
            'Not found',
            'There is no page here. OAuth clients begin with the authorization endpoint, /oauth/authorize (see /.well-known/oauth-authorization-server).',
          );
      }
    },
  };
}
