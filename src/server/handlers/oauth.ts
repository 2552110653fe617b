import { operations } from '../../contract/operations.js';
import type { OAuthAppRecord, OAuthGrantRecord } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import { implement } from '../context.js';
import { newApp } from '../oauth/models/client.js';
import { revokeGrantIn } from '../oauth/models/grant.js';
import { pageIndex } from '../paging.js';
import { notFound, ProblemError } from '../problems.js';

/** An application as the API shows it: never its secret's hash. */
export const appView = (a: OAuthAppRecord) => ({
  client_id: a.id,
  name: a.name,
  type: a.type,
  redirect_uris: a.redirect_uris,
  workspace_id: a.workspace_id,
  created_at: a.created_at,
});

const grantView = (store: Store, g: OAuthGrantRecord) => ({
  id: g.id,
  client_id: g.client_id,
  app_name:
    g.client_id === 'wcm-cli' ? 'wcm (command line)' : (store.get('oauth_apps', g.client_id)?.name ?? g.client_id),
  abilities: g.abilities,
  workspace_ids: g.workspace_ids,
  audience: g.audience,
  created_at: g.created_at,
  revoked_at: g.revoked_at,
});

/** Another member's application (or one of unknown origin) is deleted by an owner only (docs/security.md#oauth). */
function requireOwnerUnlessCreator(store: Store, userId: string, app: OAuthAppRecord): void {
  if (app.created_by === userId) return;
  const role = store.get('workspaces', app.workspace_id!)?.members.find((m) => m.user_id === userId)?.role;
  if (role !== 'owner') {
    throw new ProblemError('owner_required', {
      detail: `Application \`${app.id}\` was registered by another member: deleting it needs the \`owner\` role in the workspace (yours is \`${role}\`).`,
    });
  }
}

export const oauthHandlers = [
  implement(operations.createOAuthApp, async ({ auth, params, body, store, clock }) => {
    const { record, secret } = newApp(clock, {
      name: body.name,
      redirect_uris: body.redirect_uris,
      type: body.type,
      workspace_id: params.workspace,
      created_by: auth!.user.id,
    });
    await store.transact((tx) => tx.put('oauth_apps', record));
    return { ...appView(record), ...(secret ? { client_secret: secret } : {}) };
  }),
  implement(operations.listOAuthApps, ({ params, query, store }) =>
    pageIndex(store.index('oauthAppsByWorkspace'), params.workspace, {
      scope: `oauth-apps:${params.workspace}`,
      cursor: query.cursor,
      limit: query.limit,
      map: appView,
    }),
  ),
  implement(operations.deleteOAuthApp, async ({ auth, params, store, clock }) => {
    const app = store.get('oauth_apps', params.app);
    if (!app || app.workspace_id !== params.workspace) throw notFound('oauth_app_not_found', params.app);
    requireOwnerUnlessCreator(store, auth!.user.id, app);
    // Every authorization given to the app ends with it, and with them every token it was issued.
    const grants = [...store.values('oauth_grants')].filter((g) => g.client_id === app.id && !g.revoked_at);
    await store.transact((tx) => {
      for (const g of grants) revokeGrantIn(tx, store, g, clock);
      tx.delete('oauth_apps', app.id);
    });
    return appView(app);
  }),
  implement(operations.listOAuthGrants, ({ auth, query, store }) =>
    pageIndex(store.index('oauthGrantsByUser'), auth!.user.id, {
      scope: `oauth-grants:${auth!.user.id}`,
      cursor: query.cursor,
      limit: query.limit,
      map: (g) => grantView(store, g),
    }),
  ),
  implement(operations.revokeOAuthGrant, async ({ auth, params, store, clock }) => {
    const grant = store.get('oauth_grants', params.grant);
    // Another user's grant is as unknown as a missing one: no probing for grant ids.
    if (!grant || grant.user_id !== auth!.user.id || grant.revoked_at)
      throw notFound('oauth_grant_not_found', params.grant);
    await store.transact((tx) => revokeGrantIn(tx, store, grant, clock));
    return grantView(store, store.get('oauth_grants', grant.id)!);
  }),
];
