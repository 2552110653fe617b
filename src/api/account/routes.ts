import type { Route } from '../../contract/route.js';

/** The account area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `schemas.ts`, handlers beside them. */
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
