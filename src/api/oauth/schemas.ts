import { z } from 'zod';
import { AbilitySchema, noQuery, pagingQuery, Timestamp, Uuid, wsParam } from '../../contract/common.js';
import type { OperationId } from '../../contract/table.js';
import type { OperationSchemas } from '../../contract/route.js';

/** Client ids of registered applications; `wcm-cli` is the built-in one. */
export const CLIENT_ID_PATTERN = /^wcm_app_[A-Za-z0-9]{24,}$/;
export const ClientId = z.string().regex(CLIENT_ID_PATTERN, 'Must look like wcm_app_<24+ letters and digits>.');
export const GrantId = z.string().regex(/^grant_[A-Za-z0-9]{16,}$/, 'Must look like grant_<16+ letters and digits>.');

/** Schemes a browser would run or read locally: never a redirect target. */
const DANGEROUS_SCHEMES = new Set([
  'javascript:',
  'data:',
  'file:',
  'vbscript:',
  'about:',
  'blob:',
  'ws:',
  'wss:',
  'ftp:',
  'filesystem:',
  'view-source:',
  'mhtml:',
  'jar:',
]);

/**
 * A redirect URI an application may use (docs/security.md#oauth): https anywhere, plain http on a loopback
 * address (RFC 8252 §7.3), or a native app's private-use scheme (RFC 8252 §7.1: `com.example.app:/cb`,
 * `cursor://…`); never a scheme a browser runs or reads locally, never a fragment or credentials.
 */
export function redirectUriProblem(value: string): string | null {
  if (value.length > 2000) return 'is longer than 2,000 characters';
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (u.hash || value.includes('#')) return 'must not have a fragment';
  if (u.username || u.password) return 'must not hold a user name or password';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:')
    return isLoopbackHostname(u.hostname)
      ? null
      : 'uses plain http to a host that is not a loopback address: use https (or http://127.0.0.1, [::1] or localhost)';
  // Any scheme naming a script (`x-javascript:`, `livescript:`, `jscript:`…): some browser, or a
  // handler registered for it, may run what follows.
  if (DANGEROUS_SCHEMES.has(u.protocol) || u.protocol.includes('script'))
    return `uses the \`${u.protocol}\` scheme, which is never a redirect target: use https, loopback http, or your app's own scheme (com.example.app:/callback)`;
  // A native app's callback has a path (RFC 8252 §7.1: `com.example.app:/callback`, `cursor://host/…`);
  // an opaque one (`wcm:alert(1)`) is code or data, not a place to come back to.
  if (!value.slice(u.protocol.length).startsWith('/'))
    return `has no path after \`${u.protocol}\`: a private-use scheme's redirect URI is \`${u.protocol}/path\` or \`${u.protocol}//host/path\` (RFC 8252 §7.1)`;
  return null;
}

export const isLoopbackHostname = (h: string): boolean =>
  h === 'localhost' || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);

export const RedirectUri = z
  .string()
  .max(2000)
  .superRefine((v, ctx) => {
    const why = redirectUriProblem(v);
    if (why) ctx.addIssue({ code: 'custom', message: `The redirect URI ${why}.` });
  })
  .meta({ examples: ['http://127.0.0.1/callback'] });

export const OAuthApp = z
  .object({
    client_id: z.string(),
    name: z.string(),
    type: z.enum(['public', 'confidential']),
    redirect_uris: z.array(z.string()),
    workspace_id: Uuid.nullable(),
    created_at: Timestamp,
  })
  .meta({ id: 'OAuthApp' });

export const CreatedOAuthApp = OAuthApp.extend({
  client_secret: z
    .string()
    .optional()
    .describe('Confidential applications only; shown in this response and never again.'),
}).meta({ id: 'CreatedOAuthApp' });

export const CreateOAuthAppBody = z
  .strictObject({
    name: z.string().trim().min(1).max(120),
    redirect_uris: z.array(RedirectUri).min(1).max(10),
    type: z.enum(['public', 'confidential']).default('public'),
  })
  .meta({ id: 'CreateOAuthAppBody' });

export const OAuthGrant = z
  .object({
    id: z.string(),
    client_id: z.string(),
    app_name: z.string(),
    abilities: z.array(AbilitySchema),
    workspace_ids: z.array(Uuid),
    audience: z.string(),
    created_at: Timestamp,
    revoked_at: Timestamp.nullable(),
  })
  .meta({ id: 'OAuthGrant' });

/** The schemas of the oauth area's operations (their routes: `routes.ts`). */
export const oauthSchemas = {
  createOAuthApp: {
    params: z.strictObject(wsParam),
    query: noQuery,
    body: CreateOAuthAppBody,
    response: CreatedOAuthApp,
  },
  listOAuthApps: { params: z.strictObject(wsParam), query: pagingQuery, body: undefined, response: OAuthApp },
  deleteOAuthApp: {
    params: z.strictObject({ ...wsParam, app: ClientId }),
    query: noQuery,
    body: undefined,
    response: OAuthApp,
  },
  listOAuthGrants: { params: z.strictObject({}), query: pagingQuery, body: undefined, response: OAuthGrant },
  revokeOAuthGrant: {
    params: z.strictObject({ grant: GrantId }),
    query: noQuery,
    body: undefined,
    response: OAuthGrant,
  },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
