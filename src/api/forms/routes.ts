import type { Route } from '../../contract/route.js';

/** The forms area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `schemas.ts`, handlers beside them. */
export const formRoutes = {
  getForm: {
    method: 'GET',
    path: '/workspaces/{workspace}/forms/{form}',
    tag: 'Forms',
    summary: 'Get a form',
    access: 'bearer',
    ability: 'content:read',
    status: 200,
    extension: true,
    notFound: { workspace: 'workspace_not_found', form: 'form_not_found' },
  },
  updateForm: {
    method: 'PATCH',
    path: '/workspaces/{workspace}/forms/{form}',
    tag: 'Forms',
    summary: 'Update a form',
    access: 'bearer',
    ability: 'content:write',
    status: 200,
    notFound: { workspace: 'workspace_not_found', form: 'form_not_found' },
    example: { body: { name: 'Catering request' } },
  },
  listForms: {
    method: 'GET',
    path: '/workspaces/{workspace}/forms',
    tag: 'Forms',
    summary: "List the workspace's forms, most recently updated first (never updated last)",
    access: 'bearer',
    ability: 'content:read',
    status: 200,
    list: true,
    extension: true,
    notFound: { workspace: 'workspace_not_found' },
  },
} as const satisfies Record<string, Route>;
