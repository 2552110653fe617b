/**
 * CORS (docs/security.md#host-origin-and-cors): only where a browser-based OAuth or MCP client needs it, only for allowed
 * origins, and never with credentials (no Access-Control-Allow-Credentials, so no cookies).
 */
import type { AppResponse } from '../response.js';

const ALLOWED_HEADERS = 'Authorization, Content-Type, Mcp-Protocol-Version, Mcp-Session-Id';
/** What a browser-based client must read: the OAuth challenge, and the MCP session headers. */
const EXPOSED_HEADERS = 'WWW-Authenticate, Mcp-Session-Id, Mcp-Protocol-Version';
const OAUTH_CORS_PATHS = new Set(['/oauth/token', '/oauth/register', '/oauth/revoke']);

/** The methods a path allows cross-origin, or null where CORS is not offered. */
export function corsMethods(path: string): string | null {
  if (path.startsWith('/.well-known/')) return 'GET, OPTIONS';
  if (OAUTH_CORS_PATHS.has(path)) return 'POST, OPTIONS';
  if (path === '/mcp') return 'GET, POST, DELETE, OPTIONS';
  return null;
}

/** Headers for an actual response to an allowed origin on a CORS path. */
export function corsHeaders(origin: string): Record<string, string> {
  return { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS, Vary: 'Origin' };
}

/** `OPTIONS` preflight from an allowed origin: 204, echoing the origin. */
export function preflight(origin: string, methods: string, requestId: string): AppResponse {
  return {
    status: 204,
    headers: {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Methods': methods,
      'Access-Control-Allow-Headers': ALLOWED_HEADERS,
      'Access-Control-Max-Age': '600',
      Vary: 'Origin',
      'X-Request-Id': requestId,
    },
    body: '',
  };
}
