import { z } from 'zod';
import { AbilitySchema, noQuery, pagingQuery, Timestamp, Uuid, wsParam } from './common.js';
import type { OperationId } from './table.js';
import type { OperationSchemas } from './route.js';

/** Client ids of registered applications; `wcm-cli` is the built-in one. */
export const CLIENT_ID_PATTERN = /^wcm_app_[A-Za-z0-9]{24,}$/;
export const ClientId = z.string().regex(CLIENT_ID_PATTERN, 'Must look like wcm_app_<24+ letters and digits>.');
export const GrantId = z.string().regex(/^grant_[A-Za-z0-9]{16,}$/, 'Must look like grant_<16+ letters and digits>.');

/**
 * A redirect URI an application may use: https anywhere, or plain http on a loopback address
 * (RFC 8252 §7.3); never a fragment, never credentials in it.
 */
export function redirectUriProblem(value: string): string | null {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (u.hash || value.includes('#')) return 'must not have a fragment';
  if (u.username || u.password) return 'must not hold a user name or password';
  if (u.protocol === 'https:') return null;
  if (u.protocol === 'http:' && isLoopbackHostname(u.hostname)) return null;
  return 'must use https, or http on a loopback address (127.0.0.1, [::1] or localhost)';
}

export const isLoopbackHostname = (h: string): boolean => h === 'localhost' || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);

export const RedirectUri = z.string().max(2000).superRefine((v, ctx) => {
  const why = redirectUriProblem(v);
  if (why) ctx.addIssue({ code: 'custom', message: `The redirect URI ${why}.` });
}).meta({ examples: ['http://127.0.0.1/callback'] });

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
  client_secret: z.string().optional().describe('Confidential applications only; shown in this response and never again.'),
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

/** The schemas of the oauth area's operations (their routes: `routes/oauth.ts`). */
export const oauthSchemas = {
  createOAuthApp: { params: z.strictObject(wsParam), query: noQuery, body: CreateOAuthAppBody, response: CreatedOAuthApp },
  listOAuthApps: { params: z.strictObject(wsParam), query: pagingQuery, body: undefined, response: OAuthApp },
  deleteOAuthApp: { params: z.strictObject({ ...wsParam, app: ClientId }), query: noQuery, body: undefined, response: OAuthApp },
  listOAuthGrants: { params: z.strictObject({}), query: pagingQuery, body: undefined, response: OAuthGrant },
  revokeOAuthGrant: { params: z.strictObject({ grant: GrantId }), query: noQuery, body: undefined, response: OAuthGrant },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
