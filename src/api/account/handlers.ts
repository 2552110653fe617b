import { operations } from '../../contract/operations.js';
import { reachableWorkspaces } from '../../server/auth.js';
import { implement } from '../../server/context.js';

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
];
