import { COLLECTIONS } from '../../../store/records.js';
import { ProblemError } from '../../problems.js';
import { html } from '../../web/html.js';
import { badge, table, when, wsHref, type View } from '../chrome.js';
import type { Row } from '../data.js';
import type { WorkspaceRequest } from '../request.js';

/**
 * OAuth applications and grants (OAUTH.md) are kept by the OAuth server in collections of their
 * own. The page reads whichever of these the store has, and is left out of the side bar while it
 * has none, so the dashboard works the same before and after the OAuth server is on the branch.
 */
export const OAUTH_APPS = 'oauth_apps';
const GRANT_COLLECTIONS = ['oauth_grants'];

const has = (name: string) => (COLLECTIONS as readonly string[]).includes(name);
export const hasOAuth = (): boolean => has(OAUTH_APPS);

/** Records of a collection this build may not know (typed loosely: their shape is the OAuth server's). */
function recordsOf(r: WorkspaceRequest, name: string): Row[] {
  if (!has(name)) return [];
  return [...(r.store.values as (c: string) => Iterable<Row>)(name)];
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(' ').filter(Boolean) : []);

/** `…/oauth`: the applications registered in this workspace, and the grants that reach it. */
export function oauthView(r: WorkspaceRequest): View {
  if (!hasOAuth()) throw new ProblemError('not_found', { detail: 'This server keeps no OAuth applications.' });
  const w = r.workspace.id;
  const apps = recordsOf(r, OAUTH_APPS)
    .filter((a) => a.workspace_id === w)
    .sort((a, b) => String(b.created_at ?? '').localeCompare(String(a.created_at ?? '')));
  const appName = new Map(recordsOf(r, OAUTH_APPS).map((a) => [String(a.client_id ?? a.id), String(a.name ?? a.client_id ?? a.id)]));
  const appRows = apps.map(
    (a) => html`<tr><td>${a.name ?? ''}<span class="sub mono">${a.client_id ?? a.id}</span></td><td>${a.type === 'confidential' ? badge('confidential', 'info') : badge(String(a.type ?? 'public'))}</td><td>${list(a.redirect_uris).map((u) => html`<code>${u}</code><br>`)}</td><td class="nowrap">${when(a.created_at as string | undefined)}</td></tr>`,
  );
  const grants = GRANT_COLLECTIONS.flatMap((c) => recordsOf(r, c)).filter((g) => list(g.workspace_ids).includes(w));
  const grantRows = grants.map((g) => {
    const user = r.store.get('users', String(g.user_id ?? ''));
    const client = String(g.client_id ?? g.app_id ?? '');
    const revoked = g.revoked_at ? badge('revoked', 'bad') : badge('active', 'ok');
    return html`<tr><td>${user?.name ?? g.user_id ?? ''}</td><td>${appName.get(client) ?? client}</td><td>${list(g.scopes ?? g.scope ?? g.abilities).map((s) => html`<code>${s}</code> `)}</td><td>${revoked}</td><td class="nowrap">${when(g.created_at as string | undefined)}</td></tr>`;
  });
  return {
    title: 'OAuth apps and grants',
    section: 'oauth',
    crumbs: [[r.workspace.name, wsHref(w)]],
    lead: 'Applications registered in this workspace, and what users granted applications in it. Secrets are never shown.',
    body: html`<h2>Applications</h2>${table(['Application', 'Type', 'Redirect URIs', 'Registered'], appRows, 'No OAuth applications are registered in this workspace.')}
<h2>Grants</h2>${table(['User', 'Application', 'Abilities', 'State', 'Granted'], grantRows, 'No grant reaches this workspace.')}`,
  };
}
