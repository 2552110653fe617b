import type { Ability } from '../../../contract/enums.js';
import type { WorkspaceRecord } from '../../../store/records.js';
import type { AppResponse } from '../../app.js';
import type { RequestInfo } from '../../context.js';
import { ASSETS_PREFIX } from '../../web/assets.js';
import { html, htmlResponse, layout, type Html } from '../../web/html.js';
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
  /** The workspaces the session may grant (the user's, narrowed by its sign-in token), sorted by name. */
  workspaces: WorkspaceRecord[];
  /** The requested abilities the session may grant (all of them on loopback; off it, the sign-in token's). */
  offered: Ability[];
  hidden: AuthorizeParams;
  problem?: string;
  /** What the user had ticked, when the page comes back with a problem; else abilities all ticked, workspaces none (unless only one). */
  ticked?: { abilities: string[]; workspaces: string[] };
}

/** The page's script: Authorize stays disabled until an ability and a workspace are ticked (the server checks again). */
export const CONSENT_JS = `(() => {
  const form = document.getElementById('consent');
  if (!form) return;
  const approve = form.querySelector('button[value="approve"]');
  const any = (prefix) => Array.from(form.querySelectorAll('input[type="checkbox"]')).some((i) => i.name.startsWith(prefix) && i.checked);
  const update = () => { approve.disabled = !(any('ability_') && any('workspace_')); };
  form.addEventListener('change', update);
  update();
})();
`;

const checkbox = (name: string, checked: boolean, label: Html) =>
  html`<label class="check"><input type="checkbox" name="${name}" value="on"${checked ? html` checked` : ''}> ${label}</label>`;

function workspaceChoices(v: ConsentView) {
  if (!v.workspaces.length)
    return html`<p>${v.signed.workspaceIds ? 'The token you signed in with reaches none of your workspaces.' : 'You are not a member of any workspace.'}</p>`;
  const only = v.workspaces.length === 1;
  return v.workspaces.map((w) =>
    checkbox(`workspace_${w.id}`, v.ticked ? v.ticked.workspaces.includes(w.id) : only, html`${w.name}`),
  );
}

/** Each offered ability as a ticked checkbox the user may untick; the requested ones this sign-in cannot grant, listed apart. */
function abilityChoices(v: ConsentView) {
  const withheld = v.request.abilities.filter((a) => !v.offered.includes(a));
  const boxes = v.offered.map((a) =>
    checkbox(
      `ability_${a}`,
      v.ticked ? v.ticked.abilities.includes(a) : true,
      html`<code>${a}</code> ${ABILITY_WORDS[a]}`,
    ),
  );
  return html`<fieldset class="abilities"><legend>It will be able to</legend>
${v.offered.length ? boxes : html`<p>Nothing: the token you signed in with has none of the abilities asked for.</p>`}
</fieldset>
${withheld.length ? html`<p class="sub">Not offered, because the token you signed in with does not have ${withheld.length === 1 ? 'it' : 'them'}: ${withheld.map((a, i) => html`${i ? ', ' : ''}<code>${a}</code>`)}.</p>` : ''}`;
}

/** Where the answer goes, as the user should read it: the origin, or a native app's scheme and host. */
const redirectTarget = (u: URL): string =>
  u.origin !== 'null' ? u.origin : `${u.protocol}${u.host ? `//${u.host}` : ''}`;
/** A CSP source for the redirect: its origin, or (a private-use scheme has none) the scheme alone. */
const formActionSource = (u: URL): string => (u.origin !== 'null' ? u.origin : u.protocol);

/** The consent page: who asks, for what, in which workspaces; Authorize or Deny. */
export function consentPage(v: ConsentView): AppResponse {
  const { request: r, signed, hidden, problem } = v;
  const target = new URL(r.redirectUri);
  const body = html`<section class="panel signin consent">
<h1>Authorize ${r.client.name}</h1>
${r.client.dynamic ? html`<p class="alert unverified" role="note"><strong>Unverified application.</strong> It registered itself under the name &ldquo;${r.client.name}&rdquo;, which nobody checked; it will be sent to <code>${redirectTarget(target)}</code>.</p>` : ''}
<p class="sub"><strong>${r.client.name}</strong>${r.client.dynamic ? ' (unverified)' : ''} wants to use this server as <strong>${signed.user.name}</strong> (${signed.user.email})${r.audience === 'wcm-mcp' ? ' through its MCP endpoint' : ''}.</p>
${problem ? html`<div class="alert" role="alert">${problem}</div>` : ''}
<form method="post" action="${OAUTH}/authorize" id="consent">
<input type="hidden" name="csrf" value="${signed.session.csrf}">
${AUTHORIZE_FIELDS.map((k) => (hidden[k] !== undefined ? html`<input type="hidden" name="${k}" value="${hidden[k]}">` : ''))}
${abilityChoices(v)}
<fieldset><legend>In these workspaces</legend>
${workspaceChoices(v)}
</fieldset>
<p class="sub">Afterwards you go back to <code>${redirectTarget(target)}</code>.</p>
<p class="hint" id="authorize-hint">Authorize grants only what stays ticked: at least one ability and one workspace.</p>
<div class="actions"><button type="submit" name="decision" value="approve" class="primary" aria-describedby="authorize-hint"${v.offered.length && v.workspaces.length ? '' : html` disabled`}>Authorize</button> <button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>
<script src="${ASSETS_PREFIX}/consent.js" defer></script>
</section>`;
  // Chromium applies form-action to the redirect that follows the POST: allow the app's origin.
  return htmlResponse(
    problem ? 400 : 200,
    layout({
      title: `Authorize ${r.client.name}`,
      body,
      home: `${OAUTH}/authorize`,
      user: { name: signed.user.name, email: signed.user.email, signOut: signed.signOut },
    }),
    {
      headers: signed.renewal
        ? { 'X-Request-Id': v.info.id, 'Set-Cookie': signed.renewal }
        : { 'X-Request-Id': v.info.id },
      csp: { 'form-action': `'self' ${formActionSource(target)}`, 'script-src': "'self'" },
    },
  );
}
