import { CLI_CLIENT_ID } from '../../oauth/models/client.js';
import { html } from '../../web/html.js';
import { badge, table, when, wsHref, type View } from '../chrome.js';
import { recordsById, wholePartition } from '../data.js';
import type { WorkspaceRequest } from '../request.js';

/** Newest first, then by id: how the page lists apps and grants. */
const newestFirst = (a: { created_at: string; id: string }, b: { created_at: string; id: string }) =>
  b.created_at.localeCompare(a.created_at) || a.id.localeCompare(b.id);

/** `…/oauth`: the applications registered in this workspace, and the grants that reach it (docs/oauth.md). */
export async function oauthView(r: WorkspaceRequest): Promise<View> {
  const w = r.workspace.id;
  const { apps, grants, clients, users } = await r.db.read(async (tx) => {
    const [apps, grants] = await Promise.all([
      wholePartition(tx, 'oauth_apps', 'oauthAppsByWorkspace', w),
      wholePartition(tx, 'oauth_grants', 'oauthGrantsByWorkspace', w),
    ]);
    const [clients, users] = await Promise.all([
      recordsById(
        tx,
        'oauth_apps',
        grants.map((g) => g.client_id).filter((id) => id !== CLI_CLIENT_ID),
      ),
      recordsById(
        tx,
        'users',
        grants.map((g) => g.user_id),
      ),
    ]);
    return { apps: [...apps].sort(newestFirst), grants: [...grants].sort(newestFirst), clients, users };
  });
  const appName = (id: string) => (id === CLI_CLIENT_ID ? 'wcm (command line)' : (clients.get(id)?.name ?? id));
  const appRows = apps.map(
    (a) =>
      html`<tr><td>${a.name}<span class="sub mono">${a.id}</span></td><td>${a.type === 'confidential' ? badge('confidential', 'info') : badge('public')}</td><td>${a.redirect_uris.map((u) => html`<code>${u}</code><br>`)}</td><td class="nowrap">${when(a.created_at)}</td></tr>`,
  );
  const grantRows = grants.map((g) => {
    const user = users.get(g.user_id);
    const state = g.revoked_at ? badge('revoked', 'bad') : badge('active', 'ok');
    return html`<tr><td>${user?.name ?? g.user_id}</td><td>${appName(g.client_id)}</td><td>${g.abilities.map((s) => html`<code>${s}</code> `)}</td><td>${g.audience}</td><td>${state}</td><td class="nowrap">${when(g.created_at)}</td></tr>`;
  });
  return {
    title: 'OAuth apps and grants',
    section: 'oauth',
    crumbs: [[r.workspace.name, wsHref(w)]],
    lead: 'Applications registered in this workspace, and what users granted applications in it. Secrets and tokens are never shown.',
    body: html`<h2>Applications</h2>${table(['Application', 'Type', 'Redirect URIs', 'Registered'], appRows, 'No OAuth applications are registered in this workspace.')}
<h2>Grants</h2>${table(['User', 'Application', 'Abilities', 'Audience', 'State', 'Granted'], grantRows, 'No grant reaches this workspace.')}`,
  };
}
