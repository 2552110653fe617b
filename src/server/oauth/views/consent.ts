import type { Ability } from '../../../contract/enums.js';
import type { WorkspaceRecord } from '../../../store/records.js';
import type { AppResponse } from '../../app.js';
import type { RequestInfo } from '../../context.js';
import { html, htmlResponse, layout } from '../../web/html.js';
import type { SignedIn } from '../../web/signin.js';
import { AUTHORIZE_FIELDS, type AuthorizationRequest, type AuthorizeParams } from '../checks/authorization-request.js';
import { OAUTH } from '../responses.js';

/** Each ability in words (the contract's table), for the consent page. */
export const ABILITY_WORDS: Record<Ability, string> = {
  'workspaces:read': 'Read workspaces, teams, domains, settings and connections',
  'workspaces:write': 'Create and manage workspaces, teams, domains, settings and connections',
  'content:read': 'Read buttons, forms, lists, pages, booking types and knowledge',
  'content:write': 'Create, update, publish and remove content',
  'engagements:read': 'Read submissions, subscribers, bookings, callbacks, calls, reviews and conversations',
  'engagements:manage': 'Reply to and manage engagement records',
  'actions:request': 'Request protected actions that can still require human confirmation',
};

export interface ConsentView {
  request: AuthorizationRequest;
  signed: SignedIn;
  info: RequestInfo;
  /** The user's workspaces, sorted by name. */
  workspaces: WorkspaceRecord[];
  hidden: AuthorizeParams;
  problem?: string;
}

function workspaceChoices(workspaces: WorkspaceRecord[]) {
  if (!workspaces.length) return html`<p>You are not a member of any workspace.</p>`;
  const only = workspaces.length === 1;
  return workspaces.map((w) => html`<label class="check"><input type="checkbox" name="workspace_${w.id}" value="on"${only ? html` checked` : ''}> ${w.name}</label>`);
}

/** The consent page: who asks, for what, in which workspaces; Authorize or Deny. */
export function consentPage(v: ConsentView): AppResponse {
  const { request: r, signed, hidden, problem } = v;
  const target = new URL(r.redirectUri);
  const body = html`<section class="panel signin consent">
<h1>Authorize ${r.client.name}</h1>
<p class="sub"><strong>${r.client.name}</strong> wants to use this server as <strong>${signed.user.name}</strong> (${signed.user.email})${r.audience === 'wcm-mcp' ? ' through its MCP endpoint' : ''}.</p>
${problem ? html`<div class="alert" role="alert">${problem}</div>` : ''}
<form method="post" action="${OAUTH}/authorize">
<input type="hidden" name="csrf" value="${signed.session.csrf}">
${AUTHORIZE_FIELDS.map((k) => (hidden[k] !== undefined ? html`<input type="hidden" name="${k}" value="${hidden[k]}">` : ''))}
<h2>It will be able to</h2>
<ul class="abilities">${r.abilities.map((a) => html`<li><code>${a}</code> ${ABILITY_WORDS[a]}</li>`)}</ul>
<fieldset><legend>In these workspaces</legend>
${workspaceChoices(v.workspaces)}
</fieldset>
<p class="sub">Afterwards you go back to <code>${target.origin}</code>.</p>
<div class="actions"><button type="submit" name="decision" value="approve" class="primary">Authorize</button> <button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>
</section>`;
  // Chromium applies form-action to the redirect that follows the POST: allow the app's origin.
  return htmlResponse(problem ? 400 : 200, layout({ title: `Authorize ${r.client.name}`, body, home: `${OAUTH}/authorize`, user: { name: signed.user.name, email: signed.user.email, signOut: signed.signOut } }), {
    headers: { 'X-Request-Id': v.info.id },
    csp: { 'form-action': `'self' ${target.origin}` },
  });
}
