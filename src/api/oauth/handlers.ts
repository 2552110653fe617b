import { operations } from '../../contract/operations.js';
import type { Page, ReadTx, WriteTx } from '../../store/engine/interface.js';
import type { OAuthAppRecord, OAuthGrantRecord } from '../../store/records.js';
import type { SortKey } from '../../store/sorted-index.js';
import { implement } from '../../server/context.js';
import { clientName, newApp } from '../../server/oauth/models/client.js';
import { revokeGrantIn } from '../../server/oauth/models/grant.js';
import { pageRecords } from '../../server/paging.js';
import { notFound, ProblemError } from '../../server/problems.js';

/** An application as the API shows it: never its secret's hash. */
export const appView = (a: OAuthAppRecord) => ({
  client_id: a.id,
  name: a.name,
  type: a.type,
  redirect_uris: a.redirect_uris,
  workspace_id: a.workspace_id,
  created_at: a.created_at,
});

/** A grant as the API shows it, with its application's name read in `tx`. */
const grantView = async (tx: ReadTx, g: OAuthGrantRecord) => ({
  id: g.id,
  client_id: g.client_id,
  app_name: clientName(await tx.get('oauth_apps', g.client_id), g.client_id),
  abilities: g.abilities,
  workspace_ids: g.workspace_ids,
  audience: g.audience,
  created_at: g.created_at,
  revoked_at: g.revoked_at,
});

/** Another member's application (or one of unknown origin) is deleted by an owner only (docs/security.md#oauth). */
async function requireOwnerUnlessCreator(tx: ReadTx, userId: string, app: OAuthAppRecord): Promise<void> {
  if (app.created_by === userId) return;
  const role = (await tx.get('workspaces', app.workspace_id!))?.members.find((m) => m.user_id === userId)?.role;
  if (role !== 'owner') {
    throw new ProblemError('owner_required', {
      detail: `Application \`${app.id}\` was registered by another member: deleting it needs the \`owner\` role in the workspace (yours is \`${role}\`).`,
    });
  }
}

/** The application's grants are read this many at a time (index `oauthGrantsByClient`). */
const GRANT_PAGE = 200;

/** Revokes every live grant of an application, in the write `tx`, at `nowMs`. */
async function revokeGrantsOf(tx: WriteTx, clientId: string, nowMs: number): Promise<void> {
  let after: SortKey | null = null;
  for (;;) {
    const page: Page<OAuthGrantRecord> = await tx.page('oauth_grants', 'oauthGrantsByClient', {
      partition: clientId,
      limit: GRANT_PAGE,
      after,
    });
    for (const g of page.items) if (!g.revoked_at) await revokeGrantIn(tx, g, nowMs);
    if (!page.more || !page.last) return;
    after = page.last;
  }
}

export const oauthHandlers = [
  implement(operations.createOAuthApp, async ({ auth, params, body, db }) => {
    const { record, secret } = await db.write(async (tx) => {
      const made = newApp(await tx.now(), {
        name: body.name,
        redirect_uris: body.redirect_uris,
        type: body.type,
        workspace_id: params.workspace,
        created_by: auth!.user.id,
      });
      await tx.create('oauth_apps', made.record);
      return made;
    });
    return { ...appView(record), ...(secret ? { client_secret: secret } : {}) };
  }),
  implement(operations.listOAuthApps, ({ params, query, db }) =>
    pageRecords(db, 'oauthAppsByWorkspace', params.workspace, {
      scope: `oauth-apps:${params.workspace}`,
      cursor: query.cursor,
      limit: query.limit,
      map: appView,
    }),
  ),
  implement(operations.deleteOAuthApp, async ({ auth, params, db }) =>
    db.write(async (tx) => {
      const app = await tx.get('oauth_apps', params.app);
      if (!app || app.workspace_id !== params.workspace) throw notFound('oauth_app_not_found', params.app);
      await requireOwnerUnlessCreator(tx, auth!.user.id, app);
      // Every authorization given to the app ends with it, and with them every token it was issued.
      await revokeGrantsOf(tx, app.id, await tx.now());
      await tx.delete('oauth_apps', app.id);
      return appView(app);
    }),
  ),
  implement(operations.listOAuthGrants, ({ auth, query, db }) =>
    db.read(async (tx) => {
      const page = await pageRecords(tx, 'oauthGrantsByUser', auth!.user.id, {
        scope: `oauth-grants:${auth!.user.id}`,
        cursor: query.cursor,
        limit: query.limit,
        map: (g) => g,
      });
      const items = [];
      for (const g of page.items) items.push(await grantView(tx, g));
      return { items, next_cursor: page.next_cursor };
    }),
  ),
  implement(operations.revokeOAuthGrant, async ({ auth, params, db }) =>
    db.write(async (tx) => {
      const grant = await tx.get('oauth_grants', params.grant);
      // Another user's grant is as unknown as a missing one: no probing for grant ids.
      if (!grant || grant.user_id !== auth!.user.id || grant.revoked_at)
        throw notFound('oauth_grant_not_found', params.grant);
      return grantView(tx, await revokeGrantIn(tx, grant, await tx.now()));
    }),
  ),
];
