import type { Route } from '../route.js';

/** The oauth area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `../oauth.ts`. */
export const oauthRoutes = {
  createOAuthApp: {
    method: 'POST', path: '/workspaces/{workspace}/oauth-apps', tag: 'OAuth', summary: 'Register an OAuth application (a confidential one\'s secret is in this response only)', access: 'bearer', ability: 'workspaces:write', status: 201, extension: true, personal: true, notFound: {workspace: 'workspace_not_found'},
    example: { body: { name: 'CI app', redirect_uris: ['http://127.0.0.1/callback'] } },
  },
  listOAuthApps: {
    method: 'GET', path: '/workspaces/{workspace}/oauth-apps', tag: 'OAuth', summary: 'List the OAuth applications registered in the workspace, newest first', access: 'bearer', ability: 'workspaces:read', status: 200, list: true, extension: true, personal: true, notFound: {workspace: 'workspace_not_found'},
  },
  deleteOAuthApp: {
    method: 'DELETE', path: '/workspaces/{workspace}/oauth-apps/{app}', tag: 'OAuth', summary: 'Delete an OAuth application and revoke every token it was issued', access: 'bearer', ability: 'workspaces:write', status: 200, extension: true, personal: true, notFound: {workspace: 'workspace_not_found', app: 'oauth_app_not_found'},
  },
  listOAuthGrants: {
    method: 'GET', path: '/me/oauth-grants', tag: 'OAuth', summary: 'List what the token\'s user authorized OAuth applications to do, newest first', access: 'token', status: 200, list: true, extension: true, personal: true,
  },
  revokeOAuthGrant: {
    method: 'DELETE', path: '/me/oauth-grants/{grant}', tag: 'OAuth', summary: 'Revoke one of the user\'s OAuth grants and every token issued under it', access: 'token', status: 200, extension: true, personal: true, notFound: {grant: 'oauth_grant_not_found'},
  },
} as const satisfies Record<string, Route>;
