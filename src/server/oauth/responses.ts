import type { AppResponse } from '../app.js';
import { redirect } from '../web/html.js';
import type { OAuthError } from './errors.js';

export const OAUTH = '/oauth';

/** JSON never cached: tokens and errors of the token, revocation and registration endpoints. */
export const jsonResponse = (status: number, body: unknown, headers: Record<string, string> = {}): AppResponse => ({
  status,
  headers: {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    Pragma: 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  },
  body: body === undefined ? '' : JSON.stringify(body),
});

export const oauthError = (e: OAuthError, extra: Record<string, string> = {}) =>
  jsonResponse(e.status, { error: e.error, error_description: e.description }, extra);

/** `redirect_uri` with the answer's parameters, always with `iss` (RFC 9207) and `state` when one came. */
export function back(redirectUri: string, params: Record<string, string | undefined>, issuer: string): AppResponse {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  u.searchParams.set('iss', issuer);
  return redirect(u.toString());
}

/** The endpoints other than authorize answer POST only. */
export const postOnly = (what: string) =>
  jsonResponse(
    405,
    { error: 'invalid_request', error_description: `The ${what} endpoint answers POST.` },
    { Allow: 'POST' },
  );
