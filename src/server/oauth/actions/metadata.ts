import { ABILITIES } from '../../../contract/enums.js';
import type { Routes } from '../../app.js';
import { ANY } from '../../router.js';
import { ProblemError } from '../../problems.js';
import { jsonResponse, OAUTH } from '../responses.js';

/** RFC 8414 metadata: everything a client needs to find the endpoints. */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}${OAUTH}/authorize`,
    token_endpoint: `${origin}${OAUTH}/token`,
    revocation_endpoint: `${origin}${OAUTH}/revoke`,
    registration_endpoint: `${origin}${OAUTH}/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    scopes_supported: [...ABILITIES],
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 9728 metadata of one of the two protected resources. */
export function protectedResourceMetadata(origin: string, resource: 'v1' | 'api/v1' | 'mcp') {
  return {
    resource: `${origin}/${resource}`,
    authorization_servers: [origin],
    scopes_supported: [...ABILITIES],
    bearer_methods_supported: ['header'],
    resource_name: resource === 'mcp' ? 'wcm MCP server' : 'Workspace Contact Management API v1',
  };
}

/** The discovery documents by path; each made from the server's origin when asked for. */
const DOCUMENTS: Record<string, (origin: string) => object> = {
  '/.well-known/oauth-authorization-server': authorizationServerMetadata,
  '/.well-known/oauth-protected-resource': (origin) => protectedResourceMetadata(origin, 'v1'),
  '/.well-known/oauth-protected-resource/v1': (origin) => protectedResourceMetadata(origin, 'v1'),
  // Strict clients compare `resource` with the URL they asked about (RFC 9728 §3.3): exactly /api/v1 here.
  '/.well-known/oauth-protected-resource/api/v1': (origin) => protectedResourceMetadata(origin, 'api/v1'),
  '/.well-known/oauth-protected-resource/mcp': (origin) => protectedResourceMetadata(origin, 'mcp'),
};

/** `/.well-known/…`: the discovery documents, no token needed; CORS for allowed origins only (trust/cors.ts). */
export function wellKnownRoutes(): Routes {
  return (r) => {
    for (const [path, doc] of Object.entries(DOCUMENTS)) {
      r.on(['GET', 'HEAD'], path, ({ info }) =>
        jsonResponse(200, doc(info.origin), { 'Cache-Control': 'public, max-age=300' }),
      ).on(ANY, path, () => {
        throw new ProblemError('method_not_allowed', {
          detail: 'Discovery documents answer GET.',
          headers: { Allow: 'GET, HEAD' },
        });
      });
    }
    r.mount('/.well-known', ({ info }) => {
      throw new ProblemError('route_not_found', { detail: `No document at \`${info.path}\`.` });
    });
  };
}
