import { createHash, timingSafeEqual } from 'node:crypto';
import { newSecret } from '../ids.js';
import { ABILITIES, type Ability } from '../../contract/enums.js';
import { isLoopbackHostname } from '../../contract/oauth.js';
import { hashToken, tokenId } from '../../store/fixture.js';
import type { OAuthAppRecord, OAuthCodeRecord, OAuthGrantRecord, TokenRecord } from '../../store/records.js';
import type { Store, Tx } from '../../store/store.js';
import { API_AUDIENCE, MCP_AUDIENCE } from '../auth.js';
import type { Clock } from '../context.js';

/** Lifetimes: codes 60 s, access tokens 1 h, refresh tokens 30 days. */
export const CODE_SECONDS = 60;
export const ACCESS_SECONDS = 3600;
export const REFRESH_SECONDS = 30 * 24 * 3600;

/** The built-in public client of `wcm auth login --web`: any loopback redirect, any port (RFC 8252 §7.3). */
export const CLI_CLIENT_ID = 'wcm-cli';

/** An application as the flow sees it: a stored one, or the built-in `wcm-cli`. */
export interface Client {
  id: string;
  name: string;
  type: 'public' | 'confidential';
  redirect_uris: string[];
  secretSha256: string | null;
  builtIn: boolean;
}

export function findClient(store: Store, clientId: string | undefined): Client | undefined {
  if (!clientId) return undefined;
  if (clientId === CLI_CLIENT_ID) return { id: CLI_CLIENT_ID, name: 'wcm (command line)', type: 'public', redirect_uris: [], secretSha256: null, builtIn: true };
  const app = store.get('oauth_apps', clientId);
  if (!app) return undefined;
  return { id: app.id, name: app.name, type: app.type, redirect_uris: app.redirect_uris, secretSha256: app.client_secret_sha256, builtIn: false };
}

/**
 * Whether `uri` is one the client registered: exact match, except that a loopback URI's port may
 * differ (a native app listens on whatever port is free). `wcm-cli` accepts any loopback http URI.
 */
export function redirectAllowed(client: Client, uri: string | undefined): boolean {
  if (!uri) return false;
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return false;
  }
  if (u.hash || uri.includes('#') || u.username || u.password) return false;
  const loopback = u.protocol === 'http:' && isLoopbackHostname(u.hostname);
  if (client.builtIn) return loopback;
  return client.redirect_uris.some((r) => {
    if (r === uri) return true;
    if (!loopback) return false;
    const reg = new URL(r);
    return reg.protocol === u.protocol && reg.hostname === u.hostname && reg.pathname === u.pathname && reg.search === u.search;
  });
}

/** A confidential client's secret check (constant time); public clients have none to check. */
export function secretMatches(client: Client, secret: string | undefined): boolean {
  if (!client.secretSha256 || !secret) return false;
  return timingSafeEqual(Buffer.from(client.secretSha256, 'hex'), Buffer.from(hashToken(secret), 'hex'));
}

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

/** Space-separated abilities; null when one is unknown. No scope asks for all seven (shown on the consent page). */
export function parseScope(scope: string | undefined): Ability[] | null {
  if (scope === undefined || scope.trim() === '') return [...ABILITIES];
  const out: Ability[] = [];
  for (const s of scope.trim().split(/ +/)) {
    if (!(ABILITIES as readonly string[]).includes(s)) return null;
    if (!out.includes(s as Ability)) out.push(s as Ability);
  }
  return out;
}

export const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');
const codeId = (sha: string) => `code_${sha.slice(0, 24)}`;
const iso = (clock: Clock, plusSeconds = 0) => new Date(clock.now().getTime() + plusSeconds * 1000).toISOString();

/** What the user approved on the consent page, turned into a single-use code. */
export async function issueCode(
  store: Store,
  clock: Clock,
  c: Omit<OAuthCodeRecord, 'id' | 'code_sha256' | 'expires_at' | 'used_at' | 'grant_id'>,
): Promise<string> {
  const code = newSecret('wcm_code_');
  const sha = hashToken(code);
  await store.transact((tx) => tx.put('oauth_codes', { ...c, id: codeId(sha), code_sha256: sha, expires_at: iso(clock, CODE_SECONDS), used_at: null, grant_id: null }));
  return code;
}

/** An RFC 6749 error: `{error, error_description}`, 400 (401 for `invalid_client`). */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
  }
}

export interface IssuedTokens {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

function putAccessToken(tx: Tx, clock: Clock, grant: OAuthGrantRecord, abilities: Ability[], appName: string): string {
  const token = newSecret('wcm_oat_');
  const sha = hashToken(token);
  const rec: TokenRecord = {
    id: tokenId(sha), token_sha256: sha, user_id: grant.user_id, name: appName, abilities,
    expires_at: iso(clock, ACCESS_SECONDS), revoked_at: null, audience: grant.audience, workspace_ids: grant.workspace_ids,
    grant_id: grant.id, client_id: grant.client_id,
  };
  tx.put('tokens', rec);
  return token;
}

/** Revokes a grant (and so every token descended from it: the API checks the grant of each OAuth token). */
export function revokeGrantIn(tx: Tx, grant: OAuthGrantRecord, clock: Clock): void {
  if (!grant.revoked_at) tx.put('oauth_grants', { ...grant, revoked_at: iso(clock), refresh_sha256: null });
}

/** `grant_type=authorization_code`. */
export async function exchangeCode(
  store: Store,
  clock: Clock,
  client: Client,
  p: { code?: string; redirect_uri?: string; code_verifier?: string; resource?: string; origin: string },
): Promise<IssuedTokens> {
  if (!p.code) throw new OAuthError('invalid_request', 'The `code` parameter is missing.');
  if (!p.code_verifier) throw new OAuthError('invalid_request', 'The `code_verifier` parameter is missing (PKCE is required).');
  if (!p.redirect_uri) throw new OAuthError('invalid_request', 'The `redirect_uri` parameter is missing.');
  const sha = hashToken(p.code);
  const code = store.get('oauth_codes', codeId(sha));
  if (!code || code.code_sha256 !== sha) throw new OAuthError('invalid_grant', 'The authorization code is not recognised.');
  if (code.used_at) {
    // A replayed code: someone else may hold it. Revoke what its first use issued.
    const grant = code.grant_id ? store.get('oauth_grants', code.grant_id) : undefined;
    if (grant && !grant.revoked_at) await store.transact((tx) => revokeGrantIn(tx, grant, clock));
    throw new OAuthError('invalid_grant', 'The authorization code was already used; the tokens issued for it are revoked.');
  }
  if (new Date(code.expires_at).getTime() <= clock.now().getTime()) throw new OAuthError('invalid_grant', 'The authorization code has expired (codes live 60 seconds).');
  if (code.client_id !== client.id) throw new OAuthError('invalid_grant', 'The authorization code was issued to another client.');
  if (code.redirect_uri !== p.redirect_uri) throw new OAuthError('invalid_grant', 'The `redirect_uri` differs from the one of the authorization request.');
  if (s256(p.code_verifier) !== code.code_challenge) throw new OAuthError('invalid_grant', 'The `code_verifier` does not match the code challenge.');
  if (p.resource !== undefined && audienceOf(p.resource, p.origin) !== code.audience) {
    throw new OAuthError('invalid_target', 'The `resource` differs from the one of the authorization request.');
  }
  const grant: OAuthGrantRecord = {
    id: newSecret('grant_').slice(0, 6 + 24),
    user_id: code.user_id, client_id: code.client_id, abilities: code.abilities, workspace_ids: code.workspace_ids, audience: code.audience,
    refresh_sha256: null, refresh_expires_at: iso(clock, REFRESH_SECONDS), used_refresh_sha256: [], created_at: iso(clock), revoked_at: null,
  };
  const refresh = newSecret('wcm_ort_');
  grant.refresh_sha256 = hashToken(refresh);
  let access = '';
  await store.transact((tx) => {
    tx.put('oauth_grants', grant);
    tx.put('oauth_codes', { ...code, used_at: iso(clock), grant_id: grant.id });
    access = putAccessToken(tx, clock, grant, grant.abilities, client.name);
  });
  return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_SECONDS, refresh_token: refresh, scope: grant.abilities.join(' ') };
}

/** The grant whose current or earlier refresh token this is. Grants are few: a scan is fine. */
function grantOfRefresh(store: Store, sha: string): { grant: OAuthGrantRecord; current: boolean } | undefined {
  for (const g of store.values('oauth_grants')) {
    if (g.refresh_sha256 === sha) return { grant: g, current: true };
    if (g.used_refresh_sha256.includes(sha)) return { grant: g, current: false };
  }
  return undefined;
}

/** `grant_type=refresh_token`: rotation, and reuse detection that revokes the family. */
export async function refreshTokens(
  store: Store,
  clock: Clock,
  client: Client,
  p: { refresh_token?: string; scope?: string; resource?: string; origin: string },
): Promise<IssuedTokens> {
  if (!p.refresh_token) throw new OAuthError('invalid_request', 'The `refresh_token` parameter is missing.');
  const sha = hashToken(p.refresh_token);
  const found = grantOfRefresh(store, sha);
  if (!found) throw new OAuthError('invalid_grant', 'The refresh token is not recognised.');
  const { grant } = found;
  if (grant.client_id !== client.id) throw new OAuthError('invalid_grant', 'The refresh token was issued to another client.');
  if (grant.revoked_at) throw new OAuthError('invalid_grant', 'The refresh token has been revoked.');
  if (!found.current) {
    await store.transact((tx) => revokeGrantIn(tx, grant, clock));
    throw new OAuthError('invalid_grant', 'The refresh token was already used; every token of this authorization is now revoked.');
  }
  if (grant.refresh_expires_at && new Date(grant.refresh_expires_at).getTime() <= clock.now().getTime()) {
    throw new OAuthError('invalid_grant', 'The refresh token has expired (they live 30 days).');
  }
  if (p.resource !== undefined && audienceOf(p.resource, p.origin) !== grant.audience) {
    throw new OAuthError('invalid_target', 'The `resource` differs from the one this authorization was granted for.');
  }
  let abilities = grant.abilities;
  if (p.scope !== undefined && p.scope.trim() !== '') {
    const asked = parseScope(p.scope);
    if (!asked || asked.some((a) => !grant.abilities.includes(a))) {
      throw new OAuthError('invalid_scope', `The scope may only narrow what was granted: ${grant.abilities.join(' ')}.`);
    }
    abilities = asked;
  }
  const refresh = newSecret('wcm_ort_');
  let access = '';
  await store.transact((tx) => {
    tx.put('oauth_grants', {
      ...grant, refresh_sha256: hashToken(refresh), refresh_expires_at: iso(clock, REFRESH_SECONDS),
      used_refresh_sha256: [...grant.used_refresh_sha256, sha],
    });
    access = putAccessToken(tx, clock, grant, abilities, client.name);
  });
  return { access_token: access, token_type: 'Bearer', expires_in: ACCESS_SECONDS, refresh_token: refresh, scope: abilities.join(' ') };
}

/**
 * RFC 7009: an access token is revoked alone, a refresh token with its whole authorization. A
 * token that is unknown, not OAuth, or another client's is left alone; the answer is the same.
 */
export async function revokeToken(store: Store, clock: Clock, clientId: string | undefined, token: string): Promise<void> {
  const sha = hashToken(token);
  const access = store.get('tokens', tokenId(sha));
  if (access && access.token_sha256 === sha && access.grant_id) {
    if (clientId && access.client_id !== clientId) return;
    if (!access.revoked_at) await store.transact((tx) => tx.put('tokens', { ...access, revoked_at: iso(clock) }));
    return;
  }
  const found = grantOfRefresh(store, sha);
  if (found?.current && (!clientId || found.grant.client_id === clientId)) await store.transact((tx) => revokeGrantIn(tx, found.grant, clock));
}

/** A new registered application's record and, for a confidential one, its secret (shown once). */
export function newApp(
  clock: Clock,
  a: { name: string; redirect_uris: string[]; type: 'public' | 'confidential'; workspace_id: string | null },
): { record: OAuthAppRecord; secret?: string } {
  const secret = a.type === 'confidential' ? newSecret('wcm_secret_') : undefined;
  const record: OAuthAppRecord = {
    id: newSecret('wcm_app_').slice(0, 8 + 32), name: a.name, type: a.type, redirect_uris: a.redirect_uris,
    client_secret_sha256: secret ? hashToken(secret) : null, workspace_id: a.workspace_id, created_at: iso(clock),
  };
  return { record, secret };
}
