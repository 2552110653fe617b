import type { Ability } from '../../contract/enums.js';
import { html } from '../web/html.js';
import type { SignedIn } from '../web/signin.js';
import { DASHBOARD, type Section, type View } from './chrome.js';

/**
 * The ability each section reads, as the API's operations for the same data ask (docs/security.md#signing-in-on-pages):
 * a session signed in with a personal token sees only what that token could read. Orders and
 * analytics events have no read operation yet; they hold what customers and visitors did, so
 * they go with engagements. Sections absent here (overview, the workspace list) need none.
 */
export const SECTION_ABILITY: Partial<Record<Section, Ability>> = {
  threads: 'engagements:read',
  bookings: 'engagements:read',
  voice: 'engagements:read',
  orders: 'engagements:read',
  events: 'engagements:read',
  lists: 'content:read',
  forms: 'content:read',
  pages: 'content:read',
  knowledge: 'content:read',
  oauth: 'workspaces:read',
};

/** Whether the session may read a section. */
export function canRead(signed: Pick<SignedIn, 'abilities'>, section: Section): boolean {
  const need = SECTION_ABILITY[section];
  return !need || signed.abilities.includes(need);
}

/** The 403 page of a section the session cannot read: which ability is missing and how to get it. */
export function missingAbilityView(
  signed: Pick<SignedIn, 'abilities'>,
  section: Section,
  workspace: { id: string; name: string },
): View {
  const need = SECTION_ABILITY[section]!;
  const have = signed.abilities.length ? signed.abilities.join(', ') : 'none';
  return {
    title: 'Not readable with this sign-in',
    section: 'overview',
    body: html`<section class="panel"><p>This page needs the <code>${need}</code> ability. The personal access token you signed in with has: <code>${have}</code>.</p>
<p>Sign out and sign in with a token that has <code>${need}</code> to see it.</p><p><a href="${DASHBOARD}/workspaces/${encodeURIComponent(workspace.id)}">Back to ${workspace.name}</a></p></section>`,
  };
}
