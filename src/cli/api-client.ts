import { ApiClient } from '../client/client.js';
import { UsageError } from './errors.js';
import type { Factory } from './factory.js';
import { errStyle } from './output.js';
import { oauthProfile, sendableToken, type Target } from './target.js';

/** What `Factory.client()` takes: `baseUrl`/`token` replace the target's (`wcm auth login` checks a token not yet saved). */
export interface ClientOptions {
  requireToken?: boolean;
  baseUrl?: string;
  token?: string;
}

/**
 * The one place every command (and `wcm mcp`) gets its client, for target `t` (null when
 * `opts.baseUrl` replaces it): the token checked before any request (`sendableToken`), the target
 * announced once on a terminal's stderr (`announced` is the factory's), and the client's options
 * from the global flags and the environment.
 */
export async function clientFor(
  f: Factory,
  t: Target | null,
  opts: ClientOptions,
  announced: { done: boolean },
): Promise<ApiClient> {
  const { io, env, globals } = f;
  const baseUrl = opts.baseUrl ?? t!.baseUrl;
  const token = sendableToken(t, baseUrl, { given: opts.token, requireToken: opts.requireToken });
  if (t && io.isStderrTTY && !announced.done && !globals.json) {
    announced.done = true;
    const s = await errStyle(io);
    const who =
      t.sources.baseUrl.startsWith('profile') || !t.profile
        ? t.sources.baseUrl
        : `${t.sources.baseUrl}, profile ${t.profile}`;
    io.stderr.write(s.dim(`→ ${t.baseUrl} (${who})${t.workspace ? ` · workspace ${t.workspace}` : ''}\n`));
  }
  return new ApiClient({
    baseUrl,
    token,
    userAgent: `wcm/${f.version}`,
    env,
    // The client redacts too; this second cut covers anything written before it gets the line.
    debug: globals.debug
      ? (line) => io.stderr.write(`[debug] ${token ? line.split(token).join('[REDACTED]') : line}\n`)
      : undefined,
    retries: intFromEnv(env, 'WCM_RETRIES', 0, 10),
    maxRetryWaitMs: intFromEnv(env, 'WCM_MAX_RETRY_WAIT_MS', 0, 600_000),
    timeoutMs: intFromEnv(env, 'WCM_TIMEOUT_MS', 1, 600_000),
    // `--json a,b`: checked against the first operation's response, before it is sent.
    beforeCall: globals.jsonFields ? firstCallCheck(globals.jsonFields) : undefined,
    renewToken: opts.token === undefined && !opts.baseUrl ? await oauthRenewal(f, t) : undefined,
  });
}

/** For a profile of `auth login --web` with a refresh token: how to renew its access token when the server refuses it. */
async function oauthRenewal(f: Factory, t: Target | null): Promise<(() => Promise<string>) | undefined> {
  if (!t) return undefined;
  const profiles = await f.profiles();
  if (!oauthProfile(t, profiles)) return undefined;
  return (await import('./oauth-login.js')).profileTokenRenewal(profiles, t.profile!, f.env);
}

function firstCallCheck(fields: string[]): (operationId: string) => Promise<void> {
  let checked = false;
  return async (operationId) => {
    if (checked) return;
    checked = true;
    await (await import('./json-fields.js')).checkFields(fields, operationId);
  };
}

/** A whole number from the environment, or a usage error naming the variable. */
function intFromEnv(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new UsageError(`${name} must be an integer from ${min} to ${max}; received \`${raw}\`.`);
  return n;
}
