import type { ApiClient } from '../client/client.js';
import type { ProfileStore } from './config.js';
import { CliError, EXIT, UsageError } from './errors.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/v1';

export interface TargetFlags {
  baseUrl?: string;
  workspace?: string;
  profile?: string;
}

/** Where a command goes and as whom, with where each part came from. */
export interface Target {
  baseUrl: string;
  token?: string;
  workspace?: string;
  profile?: string;
  sources: { baseUrl: string; token: string; workspace: string };
  /** Where the token is kept: `keychain`, `file` (the 0600 config file), `environment`, or `none`. */
  storage: 'keychain' | 'file' | 'environment' | 'none';
  /** The keychain account to read the token from (`loadTarget` reads it, lazily). */
  tokenRef?: string;
  /**
   * Set when the profile holds a token saved for another origin than the resolved base URL: the
   * token was withheld (issue 18) and any command that would send a request must stop, exit 4.
   */
  withheld?: { profile: string; savedFor: string; loginProfile?: string };
}

/**
 * The origin a token is bound to: scheme, host and port. The path is left out on purpose, so
 * `/v1` and `/api/v1` of one origin are one host.
 */
export function tokenOrigin(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    return baseUrl;
  }
}

/**
 * Exit 4 for a target whose profile token was withheld because it belongs to another origin;
 * said before anything is sent, naming the host and how to log in to it.
 */
export function withheldTokenError(t: Target): CliError {
  const w = t.withheld!;
  const host = tokenOrigin(t.baseUrl);
  return new CliError(
    `No token saved for ${host}: profile ${w.profile}'s token belongs to ${w.savedFor}, so it is not sent to ${host}.`,
    EXIT.auth,
    w.loginProfile
      ? `Use \`--profile ${w.loginProfile}\` (it holds a token for ${host}), run \`wcm auth login --base-url ${t.baseUrl} --profile NAME\`, or set WCM_TOKEN for this command.`
      : `Log in to it with \`wcm auth login --base-url ${t.baseUrl} --profile NAME\`, or set WCM_TOKEN for this command.`,
  );
}

/**
 * The target of a command, ready to send: `resolveTarget`, then the token a keychain profile keeps
 * in the OS keychain (that module loads only then), then, for a profile of `auth login --web`, its
 * access token renewed once if it has expired or will within a minute (the OAuth code loads only then).
 */
export async function loadTarget(flags: TargetFlags, env: NodeJS.ProcessEnv, profiles: ProfileStore): Promise<Target> {
  const t = resolveTarget(flags, env, profiles);
  if (t.tokenRef) t.token = (await (await import('./credentials.js')).openKeychain(env))?.get(t.tokenRef);
  if (oauthProfile(t, profiles)) {
    t.token = await (await import('./oauth-login.js')).freshProfileToken(profiles, t.profile!, t.token, env);
  }
  return t;
}

/** Whether the target's token is a saved profile's OAuth token (`auth login --web`). */
export function oauthProfile(t: Target, profiles: ProfileStore): boolean {
  return !!t.profile && (t.storage === 'file' || t.storage === 'keychain') && !!profiles.get(t.profile)?.oauth;
}

/**
 * The token to send to `baseUrl`, or why none may be: a profile token bound to another origin
 * (exit 4, even for a request that needs no token), a keychain that cannot be read, no token where
 * one is required, or a token that cannot be sent in a header. `given` is a token the caller
 * checks itself (`wcm auth login`), which replaces the target's.
 */
export function sendableToken(
  t: Target | null,
  baseUrl: string,
  o: { given?: string; requireToken?: boolean },
): string | undefined {
  const token = o.given ?? t?.token;
  if (t?.withheld && o.given === undefined) throw withheldTokenError(t);
  if (t?.tokenRef && !t.token && o.given === undefined) {
    throw new CliError(
      `Profile ${t.profile}'s token is kept in the OS keychain, which cannot be read here.`,
      EXIT.auth,
      `Unlock the keychain, or log in again with \`wcm auth login --profile ${t.profile} --base-url ${t.baseUrl}\` (or set WCM_TOKEN).`,
    );
  }
  if (o.requireToken !== false && !token) {
    throw new CliError(
      `Not logged in: no token for ${baseUrl}.`,
      EXIT.auth,
      'Run `wcm auth login` (or set WCM_TOKEN). For a local server, `wcm serve` saves profile `local` on first run.',
    );
  }
  if (token && !/^[\x21-\x7e]+$/.test(token)) {
    // Said without the token itself: it may be a real one pasted with a stray character.
    throw new UsageError(
      `The token${t ? ` (from ${t.sources.token})` : ''} has spaces, line breaks or non-ASCII characters, so it cannot be sent.`,
      'Tokens look like wcm_pat_… : copy it again, or log in again with `wcm auth login`.',
    );
  }
  return token;
}

/**
 * The workspace to act on. None from a flag, the environment or a profile of this origin: the
 * token's only workspace, as `auth login` and `wcm mcp` choose it (`client()` stops first when there
 * is no token, exit 4, or the saved one belongs to another origin). Checked like every other id,
 * before a request: a typo is not a 404 from the server.
 */
export async function targetWorkspace(t: Target, client: () => Promise<ApiClient>): Promise<string> {
  if (!t.workspace) {
    const reach = await (await client()).call('getMe').then(
      (r) => r.body.data.workspaces,
      (err) => {
        // An instance without GET /v1/me: no way to tell, so the usage error below.
        if ((err as { status?: number }).status === 404) return undefined;
        throw err;
      },
    );
    if (reach?.length === 1) {
      t.workspace = reach[0].id;
      t.sources.workspace = "the token's only workspace";
      return t.workspace;
    }
    throw new UsageError(
      'No workspace chosen.',
      `${reach?.length ? `The token reaches ${reach.length} workspaces (${reach.map((w) => `${w.id} ${w.name}`).join(', ')}). ` : ''}Pass \`--workspace ID\`, set WCM_WORKSPACE, or save one in the profile with \`wcm profile set-workspace ID\`.`,
    );
  }
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(t.workspace)) {
    throw new UsageError(
      `The workspace (from ${t.sources.workspace}) must be a workspace id (a UUID); received \`${t.workspace}\`.`,
      '`wcm auth status` lists the workspaces your token reaches.',
    );
  }
  return t.workspace;
}

/** Checks and normalises a base URL: http(s), path ending in /v1 (or /api/v1), no trailing slash. */
export function normalizeBaseUrl(raw: string, from: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`${from}: \`${raw}\` is not a URL.`, 'Use something like http://127.0.0.1:4010/v1.');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new UsageError(`${from}: \`${raw}\` must be http or https.`);
  const path = u.pathname.replace(/\/+$/, '');
  if (!/\/v1$/.test(path)) {
    throw new UsageError(`${from}: \`${raw}\` must end in /v1 (or /api/v1).`, `Did you mean ${u.origin}${path}/v1?`);
  }
  return `${u.origin}${path}`;
}

/**
 * Resolution order, first hit wins: flag, environment, the chosen profile, the default
 * profile. Each of base URL, token and workspace is resolved on its own:
 *   1. `--base-url` / `--workspace`;
 *   2. the profile named by `--profile` (a flag: the user asked for it on this command line);
 *   3. `WCM_BASE_URL` / `WCM_TOKEN` / `WCM_WORKSPACE`;
 *   4. the profile named by `WCM_PROFILE`, else the current one (`wcm profile use`), else `default`;
 *   5. the built-in default base URL.
 * Tokens come only from the environment or a profile, never from a flag.
 */
/**
 * A keychain reference (`profile@origin`, credentials.ts) if it names the origin of the profile's
 * base URL, else undefined: an edited config file cannot point a profile for one server at the
 * keychain entry of another (TRUST §5). `suffix`: `#refresh` for a refresh token's reference.
 */
export function refFor(ref: string | undefined, baseUrl: string, suffix = ''): string | undefined {
  return ref && ref.endsWith(`@${tokenOrigin(baseUrl)}${suffix}`) ? ref : undefined;
}
/** The origin a keychain reference was saved for. */
const refOrigin = (ref: string) => ref.slice(ref.lastIndexOf('@') + 1).replace(/#refresh$/, '');

export function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv, profiles: ProfileStore | null): Target {
  const profileName = flags.profile || env.WCM_PROFILE || profiles?.current();
  const profileFrom = flags.profile ? '--profile' : env.WCM_PROFILE ? 'WCM_PROFILE' : 'current profile';
  const profile = profileName ? profiles?.get(profileName) : undefined;
  if ((flags.profile || env.WCM_PROFILE) && !profile) {
    const known = Object.keys(profiles?.list() ?? {}).sort();
    throw new UsageError(
      `Profile \`${profileName}\` (from ${profileFrom}) does not exist.`,
      known.length
        ? `Known profiles: ${known.join(', ')}. Create one with \`wcm auth login --profile ${profileName}\`.`
        : `Create it with \`wcm auth login --profile ${profileName}\`.`,
    );
  }
  const pLabel = `profile ${profileName}`;
  // The profile named on the command line outranks the environment; any other profile ranks below it.
  const strong = flags.profile ? profile : undefined;
  const weak = flags.profile ? undefined : profile;

  let baseUrl: string;
  let baseSource: string;
  if (flags.baseUrl) [baseUrl, baseSource] = [normalizeBaseUrl(flags.baseUrl, '`--base-url`'), '--base-url'];
  else if (strong?.base_url) [baseUrl, baseSource] = [strong.base_url, pLabel];
  else if (env.WCM_BASE_URL)
    [baseUrl, baseSource] = [normalizeBaseUrl(env.WCM_BASE_URL, 'WCM_BASE_URL'), 'WCM_BASE_URL'];
  else if (weak?.base_url) [baseUrl, baseSource] = [weak.base_url, pLabel];
  else [baseUrl, baseSource] = [DEFAULT_BASE_URL, 'built-in default'];

  // A profile's token goes only to the origin it was saved for (the profile's base URL, path left
  // out); a WCM_TOKEN is explicit per invocation and goes where the user points it.
  const bound = (p: typeof profile) =>
    (p?.token || refFor(p?.token_ref, p?.base_url ?? '')) && tokenOrigin(p!.base_url) === tokenOrigin(baseUrl)
      ? p
      : undefined;
  let token: string | undefined;
  let tokenRef: string | undefined;
  let tokenSource = 'none';
  let storage: Target['storage'] = 'none';
  const fromProfile = bound(strong) ?? (env.WCM_TOKEN ? undefined : bound(weak));
  if (fromProfile) {
    [token, tokenRef, tokenSource] = [
      fromProfile.token,
      fromProfile.token ? undefined : refFor(fromProfile.token_ref, fromProfile.base_url),
      pLabel,
    ];
    storage = fromProfile.token ? 'file' : 'keychain';
  } else if (env.WCM_TOKEN) {
    [token, tokenSource, storage] = [env.WCM_TOKEN.trim(), 'WCM_TOKEN', 'environment'];
  }

  let withheld: Target['withheld'];
  if (!token && !tokenRef && (profile?.token || profile?.token_ref)) {
    const host = tokenOrigin(baseUrl);
    const all = profiles?.list() ?? {};
    const loginProfile = Object.keys(all)
      .sort()
      .find((n) => (all[n].token || all[n].token_ref) && tokenOrigin(all[n].base_url) === host);
    const foreignRef = !profile!.token && !refFor(profile!.token_ref, profile!.base_url);
    withheld = {
      profile: profileName!,
      savedFor: foreignRef ? refOrigin(profile!.token_ref!) : tokenOrigin(profile!.base_url),
      ...(loginProfile ? { loginProfile } : {}),
    };
    tokenSource = `withheld: profile ${profileName}'s token belongs to ${withheld.savedFor}`;
  }

  // A profile's default workspace belongs to the profile's origin, as its token does: a command
  // sent elsewhere (`--base-url`, WCM_BASE_URL) never takes it (issue 48).
  const here = (p: typeof profile) =>
    p?.workspace && tokenOrigin(p.base_url) === tokenOrigin(baseUrl) ? p.workspace : undefined;
  let workspace: string | undefined;
  let wsSource = 'none';
  if (flags.workspace) [workspace, wsSource] = [flags.workspace, '--workspace'];
  else if (here(strong)) [workspace, wsSource] = [here(strong), pLabel];
  else if (env.WCM_WORKSPACE) [workspace, wsSource] = [env.WCM_WORKSPACE, 'WCM_WORKSPACE'];
  else if (here(weak)) [workspace, wsSource] = [here(weak), pLabel];
  else if (profile?.workspace)
    wsSource = `none: profile ${profileName}'s workspace belongs to ${tokenOrigin(profile.base_url)}`;

  return {
    baseUrl,
    token,
    workspace,
    profile: profile ? profileName : undefined,
    sources: { baseUrl: baseSource, token: tokenSource, workspace: wsSource },
    storage,
    ...(tokenRef ? { tokenRef } : {}),
    ...(withheld ? { withheld } : {}),
  };
}
