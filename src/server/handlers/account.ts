import { LISTING_TEMPLATES } from '../../contract/listings.js';
import { operations } from '../../contract/operations.js';
import { reachableWorkspaces } from '../auth.js';
import { implement } from '../context.js';
import { pageEntries } from '../paging.js';
import { compareKeys } from '../../store/sorted-index.js';

const templateEntries = LISTING_TEMPLATES.map((t) => ({ key: [t.slug], rec: t }));

export const accountHandlers = [
  implement(operations.getMe, async ({ auth, db }) => {
    const { user, token } = auth!;
    const reach = await db.read((tx) => reachableWorkspaces(tx, auth!));
    return {
      user: { id: user.id, name: user.name, email: user.email },
      token: {
        name: token.name,
        kind: token.workspace_ids || token.audience ? ('oauth' as const) : ('personal' as const),
        abilities: token.abilities,
        expires_at: token.expires_at,
      },
      workspaces: reach.map(({ workspace, role }) => ({
        id: workspace.id,
        name: workspace.name,
        role,
      })),
    };
  }),
  implement(operations.listListingTemplates, ({ query }) =>
    pageEntries(
      templateEntries,
      (key, after) => {
        const i = templateEntries.findIndex((e) =>
          after ? compareKeys(e.key, key) > 0 : compareKeys(e.key, key) >= 0,
        );
        return i === -1 ? templateEntries.length : i;
      },
      { scope: 'listListingTemplates', cursor: query.cursor, limit: query.limit, map: (t) => t },
    ),
  ),
];
