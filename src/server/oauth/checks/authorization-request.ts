import { ABILITIES, type Ability } from '../../../contract/enums.js';
import type { ReadTx } from '../../../store/engine/interface.js';
import type { AppResponse } from '../../app.js';
import { findClient, type Client } from '../models/client.js';
import { back } from '../responses.js';
import { errorPage } from '../views/error.js';
import { challengeProblem } from './pkce.js';
import { redirectAllowed } from './redirect-uri.js';
import { audienceOf } from './resource.js';
import { parseScope } from './scope.js';

/** A checked authorization request: what the consent page shows and the code will remember. */
export interface AuthorizationRequest {
  client: Client;
  redirectUri: string;
  state: string | undefined;
  abilities: Ability[];
  scope: string | undefined;
  resource: string | undefined;
  audience: string;
  challenge: string;
}

export type Checked = { ok: AuthorizationRequest } | { page: AppResponse } | { redirect: AppResponse };

export const AUTHORIZE_FIELDS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
] as const;
export type AuthorizeParams = Record<string, string | undefined>;

/**
 * Checks the parameters in this order: client and redirect URI first (a page), the rest by redirect,
 * except that a self-registered client's redirect URI is not trusted with an error before the user
 * has signed in (RFC 9700 §4.11.2: an open redirector otherwise), so that is a page too.
 */
export async function checkAuthorizationRequest(
  tx: ReadTx,
  p: AuthorizeParams,
  issuer: string,
  origin: string,
  signedIn: boolean,
): Promise<Checked> {
  const client = await findClient(tx, p.client_id);
  if (!client)
    return { page: errorPage('Unknown application', `No application has the client id \`${p.client_id ?? ''}\`.`) };
  if (!redirectAllowed(client, p.redirect_uri)) {
    return {
      page: errorPage(
        'Redirect address not registered',
        `\`${p.redirect_uri ?? '(none)'}\` is not a redirect URI registered for ${client.name}.`,
      ),
    };
  }
  const redirectUri = p.redirect_uri!;
  const fail = (error: string, description: string): Checked =>
    client.dynamic && !signedIn
      ? { page: errorPage('Invalid request', `${description} (\`${error}\`)`) }
      : { redirect: back(redirectUri, { error, error_description: description, state: p.state }, issuer) };
  if (p.response_type !== 'code') return fail('unsupported_response_type', 'Only `response_type=code` is supported.');
  const pkce = challengeProblem(p.code_challenge, p.code_challenge_method);
  if (pkce) return fail('invalid_request', pkce);
  const abilities = parseScope(p.scope);
  if (!abilities || !abilities.length)
    return fail('invalid_scope', `Unknown scope; the scopes are: ${ABILITIES.join(' ')}.`);
  const audience = audienceOf(p.resource, origin);
  if (!audience) return fail('invalid_target', `\`resource\` must be ${origin}/v1 or ${origin}/mcp.`);
  return {
    ok: {
      client,
      redirectUri,
      state: p.state,
      abilities,
      scope: p.scope,
      resource: p.resource,
      audience,
      challenge: p.code_challenge!,
    },
  };
}
