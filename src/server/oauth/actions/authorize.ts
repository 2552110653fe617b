import type { AppRequest, AppResponse } from '../../app.js';
import type { RequestInfo } from '../../context.js';
import { targetUrl } from '../../web/signin.js';
import { AUTHORIZE_FIELDS, checkAuthorizationRequest, type AuthorizeParams } from '../checks/authorization-request.js';
import type { OAuthContext } from '../options.js';
import { errorPage } from '../views/error.js';
import { showConsent } from './consent.js';

/** The query's authorization parameters; a page when one is repeated (RFC 6749 §3.1). */
function queryParams(req: AppRequest): { params: AuthorizeParams } | { page: AppResponse } {
  const url = targetUrl(req);
  const params: AuthorizeParams = {};
  for (const k of AUTHORIZE_FIELDS) {
    const all = url?.searchParams.getAll(k) ?? [];
    if (all.length > 1)
      return { page: errorPage('Invalid request', `The parameter \`${k}\` was sent more than once.`) };
    params[k] = all[0];
  }
  return { params };
}

/** `GET /oauth/authorize`: check the request, then (signed in) the consent page; `POST` is the decision (`decide`). */
export async function authorize(ctx: OAuthContext, req: AppRequest, info: RequestInfo): Promise<AppResponse> {
  const q = queryParams(req);
  if ('page' in q) return q.page;
  const p = q.params;
  const signedIn = (await ctx.sessions.read(info)) !== undefined;
  const c = await ctx.db.read((tx) => checkAuthorizationRequest(tx, p, info.origin, info.origin, signedIn));
  if ('page' in c) return c.page;
  if ('redirect' in c) return c.redirect;
  const signed = await ctx.auth.requireSession(req, info);
  if (!('user' in signed)) return signed;
  return ctx.db.read((tx) => showConsent(tx, { request: c.ok, signed, info, hidden: p }));
}
