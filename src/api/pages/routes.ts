import type { Route } from '../../contract/route.js';

/** The pages area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `schemas.ts`, handlers beside them. */
export const pageRoutes = {
  getPage: {
    method: 'GET',
    path: '/workspaces/{workspace}/pages/{page}',
    tag: 'Pages',
    summary: 'Get a page',
    access: 'bearer',
    ability: 'content:read',
    status: 200,
    extension: true,
    notFound: { workspace: 'workspace_not_found', page: 'page_not_found' },
  },
  updatePage: {
    method: 'PATCH',
    path: '/workspaces/{workspace}/pages/{page}',
    tag: 'Pages',
    summary: 'Update a page',
    access: 'bearer',
    ability: 'content:write',
    status: 200,
    notFound: { workspace: 'workspace_not_found', page: 'page_not_found' },
    example: { body: { name: 'Acme Coffee home' } },
  },
  listPages: {
    method: 'GET',
    path: '/workspaces/{workspace}/pages',
    tag: 'Pages',
    summary: "List the workspace's pages, most recently updated first (never updated last)",
    access: 'bearer',
    ability: 'content:read',
    status: 200,
    list: true,
    extension: true,
    notFound: { workspace: 'workspace_not_found' },
  },
} as const satisfies Record<string, Route>;
