/**
 * `wcm auth login --web` (docs/cli.md: Logging in through the browser): discovery from the base URL's origin, the browser
 * round trip through the loopback listener, and the code exchange. Loaded only by that command.
 */
import { randomBytes } from 'node:crypto';
import { ABILITIES } from '../contract/enums.js';
import { CliError, EXIT } from './errors.js';
import type { Profile, ProfileStore } from './config.js';
import type { IO } from './io.js';
import { authorizeUrl, canOpenBrowser, listenForRedirect, pkcePair } from './oauth-loopback.js';
import { launchBrowser, openable } from './browser.js';
import { refFor } from './target.js';

/** The seven abilities, the default `--scopes` (zod loads with them: fine, this file is for `--web` only). */
export const ALL_SCOPES: readonly string[] = ABILITIES;

export interface AuthServer {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
}

export interface OAuthTokens {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
}

async function getJson<T>(url: string, what: string): Promise<T> {
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'manual' });
  } catch (err) {
    throw new CliError(
      `Could not read ${what} at ${url}: ${(err as Error).message}.`,
      EXIT.failure,
      'Is the server running and the base URL right?',
    );
  }
  if (res.status !== 200)
    throw new CliError(
      `${url} answered ${res.status}: this server publishes no ${what}, so \`--web\` cannot log in to it.`,
      EXIT.failure,
      'Log in with a personal token instead: `wcm auth login --with-token`.',
    );
  return JSON.parse(await bounded(res, url)) as T;
}

/** The body as text, at most the client's 64 MiB: a server streaming without end is cut off. */
async function bounded(res: Response, url: string): Promise<string> {
  const { boundedText } = await import('../client/transport.js');
  return boundedText(res).catch((err: Error) => {
    throw new CliError(`The answer from ${url} was cut off: ${err.message}.`, EXIT.failure);
  });
}

/** RFC 9728 then RFC 8414, from the base URL's origin; the issuer must be an origin we can trust. */
export async function discover(baseUrl: string): Promise<AuthServer> {
  const origin = new URL(baseUrl).origin;
  const pr = await getJson<{ authorization_servers?: string[] }>(
    `${origin}/.well-known/oauth-protected-resource`,
    'protected-resource metadata',
  );
  const issuer = pr.authorization_servers?.[0];
  if (!issuer)
    throw new CliError(`${origin}/.well-known/oauth-protected-resource names no authorization server.`, EXIT.failure);
  const as = await getJson<AuthServer>(
    `${issuer.replace(/\/$/, '')}/.well-known/oauth-authorization-server`,
    'authorization-server metadata',
  );
  if (as.issuer !== issuer)
    throw new CliError(
      `The authorization server's metadata names issuer \`${as.issuer}\`, not ${issuer}.`,
      EXIT.failure,
    );
  // The tokens go to these endpoints: they must be on the issuer's origin, which is the base URL's.
  for (const [what, url] of [
    ['issuer', as.issuer],
    ['token endpoint', as.token_endpoint],
    ['revocation endpoint', as.revocation_endpoint],
  ] as const)
    if (url !== undefined && originOf(url) !== origin)
      throw new CliError(
        `The authorization server's ${what} ${url} is not on ${origin}, the origin of the base URL; wcm sends tokens only there.`,
        EXIT.failure,
      );
  return as;
}

/** `url`'s origin, or undefined for a string that is not an http(s) URL. */
function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a profile's saved token or revocation endpoint is on its base URL's origin (and so the
 * issuer's, checked at login). Checked each time one is used: an endpoint edited in the config
 * afterwards must not receive the tokens.
 */
export function endpointOnOrigin(endpoint: string, baseUrl: string): boolean {
  return originOf(endpoint) !== undefined && originOf(endpoint) === originOf(baseUrl);
}

/** A form POST to the token or revocation endpoint; OAuth errors (RFC 6749 JSON) become exit 4. */
export async function tokenRequest(endpoint: string, form: Record<string, string>): Promise<OAuthTokens> {
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams(form),
    redirect: 'manual',
  });
  const text = await bounded(res, endpoint);
  let body: OAuthTokens & { error?: string; error_description?: string };
  try {
    body = JSON.parse(text) ?? {};
  } catch {
    body = {} as typeof body;
  }
  if (res.status !== 200 || !body.access_token) {
    const err = new CliError(
      `The token endpoint refused: ${refusal(body.error ?? String(res.status), body.error_description)}.`,
      EXIT.auth,
      'Run `wcm auth login --web` again.',
    );
    throw Object.assign(err, { refusal: refusal(body.error ?? String(res.status), body.error_description) });
  }
  return body;
}

/** `invalid_grant: The refresh token was revoked` (the error code, then its description without a final stop). */
const refusal = (error: string, description?: string) =>
  description ? `${error}: ${description.replace(/\.$/, '')}` : error;

/** The whole browser round trip; resolves with the tokens and the authorization server used. */
export async function webLogin(o: {
  baseUrl: string;
  clientId: string;
  scopes: string[];
  timeoutMs: number;
  io: IO;
  env: NodeJS.ProcessEnv;
}): Promise<{ tokens: OAuthTokens; as: AuthServer }> {
  const as = await discover(o.baseUrl);
  const state = randomBytes(16).toString('base64url');
  const { verifier, challenge } = pkcePair();
  const loop = await listenForRedirect({ state, issuer: as.issuer, timeoutMs: o.timeoutMs });
  try {
    // The metadata's authorization endpoint is opened only on the base URL's origin (TRUST §6).
    const url = openable(
      authorizeUrl(as.authorization_endpoint, {
        clientId: o.clientId,
        redirectUri: loop.redirectUri,
        scopes: o.scopes,
        state,
        challenge,
        resource: o.baseUrl,
      }),
      o.baseUrl,
    );
    const opened = canOpenBrowser(o.env, o.io.isStdoutTTY) && (await launchBrowser(url, o.env)).started;
    if (opened) {
      o.io.stderr.write(`Opened your browser to log in to ${o.baseUrl}. If it did not open, visit:\n${url}\n`);
    } else {
      o.io.stderr.write(`Open this URL in a browser to log in to ${o.baseUrl}:\n${url}\n`);
    }
    o.io.stderr.write(`Waiting up to ${Math.round(o.timeoutMs / 1000)} s for the browser…\n`);
    const { code } = await loop.result;
    const tokens = await tokenRequest(as.token_endpoint, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: loop.redirectUri,
      client_id: o.clientId,
      code_verifier: verifier,
      resource: o.baseUrl,
    });
    return { tokens, as };
  } finally {
    loop.close();
  }
}

/** Profile `name`'s access token `token`, renewed first if it has expired or will within a minute. */
export async function freshProfileToken(
  profiles: ProfileStore,
  name: string,
  token: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const o = profiles.get(name)?.oauth;
  if (o?.expires_at && Date.parse(o.expires_at) - Date.now() < 60_000) return refreshProfileToken(profiles, name, env);
  return token;
}

/** How to renew profile `name`'s access token when the server refuses it: only with a refresh token. */
export function profileTokenRenewal(
  profiles: ProfileStore,
  name: string,
  env: NodeJS.ProcessEnv,
): (() => Promise<string>) | undefined {
  const o = profiles.get(name)?.oauth;
  if (!o?.refresh_token && !o?.refresh_ref) return undefined;
  return () => refreshProfileToken(profiles, name, env);
}

/**
 * Refreshes profile `name`'s OAuth access token (expired or about to be) and saves the rotated
 * refresh token; a refused refresh is exit 4 saying to log in again. Returns the new access token.
 */
export async function refreshProfileToken(
  profiles: ProfileStore,
  name: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const p = profiles.get(name)!;
  const o = p.oauth!;
  const { openKeychain, saveOAuthState, saveProfileToken } = await import('./credentials.js');
  const keychain = await openKeychain(env);
  const refresh =
    o.refresh_token ?? (refFor(o.refresh_ref, p.base_url, '#refresh') ? keychain?.get(o.refresh_ref!) : undefined);
  const again = `Run \`wcm auth login --web --profile ${name} --base-url ${p.base_url}\` again.`;
  if (!refresh)
    throw new CliError(
      `Profile ${name}'s OAuth access token has expired and there is no refresh token to renew it.`,
      EXIT.auth,
      again,
    );
  if (!endpointOnOrigin(o.token_endpoint, p.base_url))
    throw new CliError(
      `Profile ${name}'s OAuth token endpoint ${o.token_endpoint} is not on ${new URL(p.base_url).origin}, the origin of its base URL; the refresh token was not sent.`,
      EXIT.auth,
      again,
    );
  let tokens: OAuthTokens;
  try {
    tokens = await tokenRequest(o.token_endpoint, {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: o.client_id,
      resource: p.base_url,
    });
  } catch (err) {
    // One level of wording, no brackets inside brackets: `… could not be renewed: the token endpoint
    // refused it (invalid_grant: The refresh token was revoked).`
    const refused = (err as { refusal?: string }).refusal;
    throw new CliError(
      refused
        ? `Profile ${name}'s OAuth session could not be renewed: the token endpoint refused it (${refused}).`
        : `Profile ${name}'s OAuth session could not be renewed: ${(err as Error).message.replace(/\.$/, '')}.`,
      EXIT.auth,
      again,
    );
  }
  const { token: _t, token_ref: _r, oauth: _o, ...rest } = p;
  await saveProfileToken(profiles, name, rest, tokens.access_token, keychain);
  const { refresh_token: _old, refresh_ref: _oldRef, ...kept } = o;
  await saveOAuthState(
    profiles,
    name,
    {
      ...kept,
      ...((tokens.refresh_token ?? refresh) ? { refresh_token: tokens.refresh_token ?? refresh } : {}),
      ...(tokens.expires_in ? { expires_at: new Date(Date.now() + tokens.expires_in * 1000).toISOString() } : {}),
      ...(tokens.scope ? { scope: tokens.scope } : {}),
    },
    keychain,
  );
  return tokens.access_token;
}

/** Revokes a profile's OAuth tokens (RFC 7009) before logout forgets them; false when the server could not be told. */
export async function revokeProfileTokens(
  p: Profile,
  access: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  const o = p.oauth;
  // An endpoint off the profile's origin (edited since login) is never sent the tokens.
  if (!o?.revocation_endpoint || !endpointOnOrigin(o.revocation_endpoint, p.base_url)) return false;
  const { openKeychain } = await import('./credentials.js');
  const refresh =
    o.refresh_token ??
    (refFor(o.refresh_ref, p.base_url, '#refresh') ? (await openKeychain(env))?.get(o.refresh_ref!) : undefined);
  let ok = true;
  for (const [token, hint] of [
    [refresh, 'refresh_token'],
    [access, 'access_token'],
  ] as const) {
    if (!token) continue;
    try {
      const res = await fetch(o.revocation_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, token_type_hint: hint, client_id: o.client_id }),
        redirect: 'manual',
      });
      ok &&= res.status === 200;
    } catch {
      ok = false;
    }
  }
  return ok;
}
