import type { WorkspaceRecord } from '../../../store/records.js';
import type { Store } from '../../../store/store.js';
import type { AppRequest, AppResponse } from '../../app.js';
import type { RequestInfo } from '../../context.js';
import { FormError, messagePage, parseForm } from '../../web/html.js';
import { checkCsrf } from '../../web/session.js';
import { AUTHORIZE_FIELDS, checkAuthorizationRequest, type AuthorizeParams } from '../checks/authorization-request.js';
import { issueCode } from '../models/code.js';
import type { OAuthContext } from '../options.js';
import { back } from '../responses.js';
import { consentPage, type ConsentView } from '../views/consent.js';

/** The workspaces `userId` belongs to, by name. */
function memberWorkspaces(store: Store, userId: string): WorkspaceRecord[] {
  return [...store.values('workspaces')].filter((w) => w.members.some((m) => m.user_id === userId)).sort((a, b) => a.name.localeCompare(b.name));
}

export const showConsent = (ctx: OAuthContext, v: Omit<ConsentView, 'workspaces'>): AppResponse =>
  consentPage({ ...v, workspaces: memberWorkspaces(ctx.store, v.signed.user.id) });

/** `POST /oauth/authorize`: the consent form's decision, turned into a code or `access_denied`. */
export async function decide(ctx: OAuthContext, req: AppRequest, info: RequestInfo): Promise<AppResponse> {
  let form: Record<string, string>;
  try {
    form = parseForm(info.rawBody);
  } catch (err) {
    return messagePage(400, 'Invalid form', err instanceof FormError ? err.message : 'The form could not be read.');
  }
  const signed = ctx.auth.requireSession(req, info);
  if (!('user' in signed)) return messagePage(403, 'Signed out', 'Your session ended before you decided. Start again from the application.');
  if (!checkCsrf(signed.session, form.csrf)) return messagePage(403, 'Form expired', 'The form was not issued to this session (CSRF check). Start again from the application.');
  const p: AuthorizeParams = {};
  for (const k of AUTHORIZE_FIELDS) p[k] = form[k];
  const c = checkAuthorizationRequest(ctx.store, p, info.origin, info.origin);
  if ('page' in c) return c.page;
  if ('redirect' in c) return c.redirect;
  const r = c.ok;
  if (form.decision === 'deny') return back(r.redirectUri, { error: 'access_denied', error_description: 'The user denied the request.', state: r.state }, info.origin);
  if (form.decision !== 'approve') return messagePage(400, 'Invalid form', 'Choose Authorize or Deny.');
  const member = new Set(memberWorkspaces(ctx.store, signed.user.id).map((w) => w.id));
  const ticked = Object.keys(form).filter((k) => k.startsWith('workspace_') && form[k] === 'on').map((k) => k.slice('workspace_'.length));
  if (ticked.some((w) => !member.has(w))) return messagePage(400, 'Invalid form', 'A workspace on the form is not one of yours.');
  if (!ticked.length) return showConsent(ctx, { request: r, signed, info, hidden: p, problem: 'Tick at least one workspace, or deny.' });
  const code = await issueCode(ctx.store, ctx.clock, {
    client_id: r.client.id, redirect_uri: r.redirectUri, user_id: signed.user.id, abilities: r.abilities, workspace_ids: ticked.sort(),
    resource: r.resource ?? '', audience: r.audience, code_challenge: r.challenge,
  });
  return back(r.redirectUri, { code, state: r.state }, info.origin);
}
