import type { Ability } from '../../../contract/enums.js';
import type { WorkspaceRecord } from '../../../store/records.js';
import type { Page, ReadTx, SortKey } from '../../../store/engine/interface.js';
import type { AppRequest, AppResponse } from '../../app.js';
import type { RequestInfo } from '../../context.js';
import { FormError, messagePage, parseForm } from '../../web/html.js';
import { checkCsrf } from '../../web/session.js';
import { reaches, type SignedIn } from '../../web/signin.js';
import {
  AUTHORIZE_FIELDS,
  checkAuthorizationRequest,
  type AuthorizationRequest,
  type AuthorizeParams,
} from '../checks/authorization-request.js';
import { issueCodeIn } from '../models/code.js';
import type { OAuthContext } from '../options.js';
import { back } from '../responses.js';
import { consentPage, type ConsentView } from '../views/consent.js';

/** A user's workspaces are read this many at a time (index `workspacesByMember`). */
const WORKSPACE_PAGE = 200;

/** The workspaces the session may grant: its user's, narrowed to its sign-in token's (docs/security.md#signing-in-on-pages), by name. */
async function grantableWorkspaces(tx: ReadTx, signed: SignedIn): Promise<WorkspaceRecord[]> {
  const out: WorkspaceRecord[] = [];
  let after: SortKey | null = null;
  for (;;) {
    const page: Page<WorkspaceRecord> = await tx.page('workspaces', 'workspacesByMember', {
      partition: signed.user.id,
      limit: WORKSPACE_PAGE,
      after,
    });
    for (const w of page.items)
      if (w.members.some((m) => m.user_id === signed.user.id) && reaches(signed, w.id)) out.push(w);
    if (!page.more || !page.last) break;
    after = page.last;
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The requested abilities the session may grant: a token-limited session cannot grant more than its token has. */
const grantableAbilities = (r: AuthorizationRequest, signed: SignedIn): Ability[] =>
  r.abilities.filter((a) => signed.abilities.includes(a));

/** The consent page, with what the session may grant read in `tx`. */
export const showConsent = async (tx: ReadTx, v: Omit<ConsentView, 'workspaces' | 'offered'>): Promise<AppResponse> =>
  consentPage({
    ...v,
    workspaces: await grantableWorkspaces(tx, v.signed),
    offered: grantableAbilities(v.request, v.signed),
  });

/** The names after `prefix` of the form's ticked checkboxes. */
const tickedOf = (form: Record<string, string>, prefix: string): string[] =>
  Object.keys(form)
    .filter((k) => k.startsWith(prefix) && form[k] === 'on')
    .map((k) => k.slice(prefix.length));

/** `POST /oauth/authorize`: the consent form's decision, turned into a code or `access_denied`. */
export async function decide(ctx: OAuthContext, req: AppRequest, info: RequestInfo): Promise<AppResponse> {
  let form: Record<string, string>;
  try {
    form = parseForm(info.rawBody);
  } catch (err) {
    return messagePage(400, 'Invalid form', err instanceof FormError ? err.message : 'The form could not be read.');
  }
  const signed = await ctx.auth.requireSession(req, info);
  if (!('user' in signed))
    return messagePage(403, 'Signed out', 'Your session ended before you decided. Start again from the application.');
  if (!checkCsrf(signed.session, form.csrf))
    return messagePage(
      403,
      'Form expired',
      'The form was not issued to this session (CSRF check). Start again from the application.',
    );
  const p: AuthorizeParams = {};
  for (const k of AUTHORIZE_FIELDS) p[k] = form[k];
  // One write: the request checked again, what the session may grant, and the code.
  return ctx.db.write(async (tx) => {
    const c = await checkAuthorizationRequest(tx, p, info.origin, info.origin, true);
    if ('page' in c) return c.page;
    if ('redirect' in c) return c.redirect;
    const r = c.ok;
    if (form.decision === 'deny')
      return back(
        r.redirectUri,
        { error: 'access_denied', error_description: 'The user denied the request.', state: r.state },
        info.origin,
      );
    if (form.decision !== 'approve') return messagePage(400, 'Invalid form', 'Choose Authorize or Deny.');
    // The grant is what stayed ticked, and only what this session may grant (a forged field is refused, not dropped).
    const offered = grantableAbilities(r, signed);
    const abilities = tickedOf(form, 'ability_');
    const stray = abilities.filter((a) => !(offered as string[]).includes(a));
    if (stray.length) {
      return messagePage(
        400,
        'Invalid form',
        `The form asks for ${stray.map((a) => `\`${a}\``).join(', ')}, which this consent did not offer (not requested, or not an ability of the token you signed in with). Start again from the application.`,
      );
    }
    const reachable = new Set((await grantableWorkspaces(tx, signed)).map((w) => w.id));
    const ticked = tickedOf(form, 'workspace_');
    if (ticked.some((w) => !reachable.has(w))) {
      return messagePage(
        400,
        'Invalid form',
        signed.workspaceIds
          ? 'A workspace on the form is not one that the token you signed in with reaches.'
          : 'A workspace on the form is not one of yours.',
      );
    }
    const again = (problem: string) =>
      showConsent(tx, { request: r, signed, info, hidden: p, problem, ticked: { abilities, workspaces: ticked } });
    if (!ticked.length) return again('Tick at least one workspace, or deny.');
    if (!abilities.length) return again('Tick at least one ability, or deny.');
    const code = await issueCodeIn(tx, {
      client_id: r.client.id,
      redirect_uri: r.redirectUri,
      user_id: signed.user.id,
      abilities: offered.filter((a) => abilities.includes(a)),
      workspace_ids: ticked.sort(),
      resource: r.resource ?? '',
      audience: r.audience,
      code_challenge: r.challenge,
    });
    return back(r.redirectUri, { code, state: r.state }, info.origin);
  });
}
