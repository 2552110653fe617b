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
  /** The keychain account to read the token from (the factory reads it, lazily). */
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
