import type { Route } from '../route.js';

/** The account area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `../account.ts`. */
export const accountRoutes = {
  getMe: {
    method: 'GET',
    path: '/me',
    tag: 'Workspaces',
    summary: "The token holder, the token's abilities and the workspaces it reaches",
    access: 'token',
    status: 200,
    extension: true,
  },
} as const satisfies Record<string, Route>;
