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
 * profile. Tokens come only from the environment or a profile, never from a flag.
 */
export function resolveTarget(flags: TargetFlags, env: NodeJS.ProcessEnv, profiles: ProfileStore | null): Target {
  const profileName = flags.profile ?? env.WCM_PROFILE ?? profiles?.current();
  const profileFrom = flags.profile ? '--profile' : env.WCM_PROFILE ? 'WCM_PROFILE' : 'default profile';
  const profile = profileName ? profiles?.get(profileName) : undefined;
  if ((flags.profile || env.WCM_PROFILE) && !profile) {
    const known = Object.keys(profiles?.list() ?? {});
    throw new UsageError(
      `Profile \`${profileName}\` (from ${profileFrom}) does not exist.`,
      known.length ? `Known profiles: ${known.join(', ')}.` : 'Create one with `wcm auth login --profile NAME`.',
    );
  }
  const pLabel = profileName ? `profile ${profileName}` : 'default';
  let baseUrl: string;
  let baseSource: string;
  if (flags.baseUrl) [baseUrl, baseSource] = [normalizeBaseUrl(flags.baseUrl, '--base-url'), '--base-url'];
  else if (env.WCM_BASE_URL) [baseUrl, baseSource] = [normalizeBaseUrl(env.WCM_BASE_URL, 'WCM_BASE_URL'), 'WCM_BASE_URL'];
  else if (profile?.base_url) [baseUrl, baseSource] = [profile.base_url, pLabel];
  else [baseUrl, baseSource] = [DEFAULT_BASE_URL, 'built-in default'];

  const token = env.WCM_TOKEN || profile?.token;
  const tokenSource = env.WCM_TOKEN ? 'WCM_TOKEN' : profile?.token ? pLabel : 'none';
  const workspace = flags.workspace ?? env.WCM_WORKSPACE ?? profile?.workspace;
  const wsSource = flags.workspace ? '--workspace' : env.WCM_WORKSPACE ? 'WCM_WORKSPACE' : profile?.workspace ? pLabel : 'none';
  return {
    baseUrl,
    token,
    workspace,
    profile: profile ? profileName : undefined,
    sources: { baseUrl: baseSource, token: tokenSource, workspace: wsSource },
  };
}
