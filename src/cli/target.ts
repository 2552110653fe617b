import type { ProfileStore } from './config.js';
import { UsageError } from './errors.js';

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
}

/** Checks and normalises a base URL: http(s), path ending in /v1 (or /api/v1), no trailing slash. */
export function normalizeBaseUrl(raw: string, from: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`${from}: \`${raw}\` is not a URL.`, 'Use something like http://127.0.0.1:4010/v1.');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`${from}: \`${raw}\` must be http or https.`);
  const path = u.pathname.replace(/\/+$/, '');
  if (!/\/v1$/.test(path)) {
    throw new UsageError(`${from}: \`${raw}\` must end in /v1 (or /api/v1).`, `Did you mean ${u.origin}${path}/v1?`);
  }
  return `${u.origin}${path}`;
}

/**
 * Resolution order, first hit wins (CLI.md): flag, environment, the chosen profile, the default
 * profile. Each of base URL, token and workspace is resolved on its own:
 *   1. `--base-url` / `--workspace`;
 *   2. the profile named by `--profile` (a flag: the user asked for it on this command line);
 *   3. `WCM_BASE_URL` / `WCM_TOKEN` / `WCM_WORKSPACE`;
 *   4. the profile named by `WCM_PROFILE`, else the current one (`wcm profile use`), else `default`;
 *   5. the built-in default base URL.
 * Tokens come only from the environment or a profile, never from a flag.
 */
export function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv, profiles: ProfileStore | null): Target {
  const profileName = flags.profile || env.WCM_PROFILE || profiles?.current();
  const profileFrom = flags.profile ? '--profile' : env.WCM_PROFILE ? 'WCM_PROFILE' : 'current profile';
  const profile = profileName ? profiles?.get(profileName) : undefined;
  if ((flags.profile || env.WCM_PROFILE) && !profile) {
    const known = Object.keys(profiles?.list() ?? {}).sort();
    throw new UsageError(
      `Profile \`${profileName}\` (from ${profileFrom}) does not exist.`,
      known.length ? `Known profiles: ${known.join(', ')}. Create one with \`wcm auth login --profile ${profileName}\`.` : `Create it with \`wcm auth login --profile ${profileName}\`.`,
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
  else if (env.WCM_BASE_URL) [baseUrl, baseSource] = [normalizeBaseUrl(env.WCM_BASE_URL, 'WCM_BASE_URL'), 'WCM_BASE_URL'];
  else if (weak?.base_url) [baseUrl, baseSource] = [weak.base_url, pLabel];
  else [baseUrl, baseSource] = [DEFAULT_BASE_URL, 'built-in default'];

  let token: string | undefined;
  let tokenSource = 'none';
  if (strong?.token) [token, tokenSource] = [strong.token, pLabel];
  else if (env.WCM_TOKEN) [token, tokenSource] = [env.WCM_TOKEN.trim(), 'WCM_TOKEN'];
  else if (weak?.token) [token, tokenSource] = [weak.token, pLabel];

  let workspace: string | undefined;
  let wsSource = 'none';
  if (flags.workspace) [workspace, wsSource] = [flags.workspace, '--workspace'];
  else if (strong?.workspace) [workspace, wsSource] = [strong.workspace, pLabel];
  else if (env.WCM_WORKSPACE) [workspace, wsSource] = [env.WCM_WORKSPACE, 'WCM_WORKSPACE'];
  else if (weak?.workspace) [workspace, wsSource] = [weak.workspace, pLabel];

  return {
    baseUrl,
    token,
    workspace,
    profile: profile ? profileName : undefined,
    sources: { baseUrl: baseSource, token: tokenSource, workspace: wsSource },
  };
}
