import { API_AUDIENCE, MCP_AUDIENCE } from '../../auth.js';

/**
 * The audience a `resource` parameter names (RFC 8707), or null when it names neither of this
 * server's resources. `/v1` and `/api/v1` are one resource; no `resource` means the API.
 */
export function audienceOf(resource: string | undefined, origin: string): string | null {
  if (resource === undefined || resource === '') return API_AUDIENCE;
  const r = resource.replace(/\/+$/, '');
  if (r === `${origin}/v1` || r === `${origin}/api/v1`) return API_AUDIENCE;
  if (r === `${origin}/mcp`) return MCP_AUDIENCE;
  return null;
}
