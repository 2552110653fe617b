import type { ApiClient } from '../client/client.js';
import type { Store } from '../store/store.js';
import type { ProfileStore } from './config.js';
import { CliError, EXIT, UsageError } from './errors.js';
import type { IO } from './io.js';
import { dataFileOf } from './local.js';
import { errStyle } from './output.js';
import { resolveTarget, withheldTokenError, type Target } from './target.js';

/** Flags every command accepts. */
export interface GlobalFlags {
  json?: boolean;
  /** `--json a,b.c`: only these fields of each record (dotted paths reach into objects). */
  jsonFields?: string[];
  /** `--jq EXPR`: the JSON output filtered by jq (in-process, WebAssembly). */
  jq?: string;
  color?: boolean;
  debug?: boolean;
  baseUrl?: string;
  workspace?: string;
  profile?: string;
}

/**
 * Dependencies as lazy getters (GitHub CLI's cmdutil.Factory): nothing heavy is loaded until a
 * command asks for it, and tests pass their own.
 */
export interface Factory {
  io: IO;
  env: NodeJS.ProcessEnv;
  cwd: string;
  version: string;
  globals: GlobalFlags;
  profiles(): Promise<ProfileStore>;
  target(): Promise<Target>;
  /**
   * A client for the resolved target; announces the target on stderr when it is a terminal.
   * `baseUrl`/`token` replace the resolved ones (`wcm auth login` checks a token not yet saved).
   */
  client(opts?: { requireToken?: boolean; baseUrl?: string; token?: string }): Promise<ApiClient>;
  /** The workspace to act on, or a usage error saying how to set one. */
  workspace(): Promise<string>;
  /**
   * The local data file (`--data FILE`, default .wcm/store.json, as for `wcm serve`), opened.
   * `readOnly` takes no lock, so it works while a server runs on the file, and the file must exist.
   * A locked, corrupt or missing file is a CliError here, for every command alike.
   */
  /** The JSON data file (`data`), or the PostgreSQL store at `url` (shared: readOnly changes nothing). */
  store(opts: { data?: string; readOnly?: boolean; url?: string }): Promise<Store>;
}

export { packageVersion } from '../version.js';
import { packageVersion } from '../version.js';

export function createFactory(io: IO, env: NodeJS.ProcessEnv, globals: GlobalFlags, cwd = process.cwd()): Factory {
  let profiles: Promise<ProfileStore> | null = null;
  let target: Promise<Target> | null = null;
  let announced = false;
  const f: Factory = {
    io,
    env,
    cwd,
    version: packageVersion(),
    globals,
    profiles: () => (profiles ??= import('./config.js').then((m) => m.ProfileStore.open(env))),
    target: () =>
      (target ??= f.profiles().then(async (p) => {
        const t = resolveTarget(globals, env, p);
        // The keychain module loads only here, for a profile whose token lives in the keychain.
        if (t.tokenRef) t.token = (await (await import('./credentials.js')).openKeychain(env))?.get(t.tokenRef);
        // An OAuth access token (auth login --web) that has expired or will within a minute is
        // renewed here, once, for every command; the OAuth code loads only then.
        const oauth =
          t.profile && (t.storage === 'file' || t.storage === 'keychain') ? p.get(t.profile)?.oauth : undefined;
        if (oauth?.expires_at && Date.parse(oauth.expires_at) - Date.now() < 60_000) {
          t.token = await (await import('./oauth-login.js')).refreshProfileToken(p, t.profile!, env);
        }
        return t;
      })),
    async client(opts = {}) {
      // Start loading the client (node:http, the route table) while the profiles are read.
      const clientModule = import('../client/client.js');
      clientModule.catch(() => undefined);
      const t = opts.baseUrl ? null : await f.target();
      const baseUrl = opts.baseUrl ?? t!.baseUrl;
      const token = opts.token ?? t?.token;
      // The one place every command (and `wcm mcp`) gets its client: a profile token bound to
      // another origin stops the command here, before any request, even one that needs no token.
      if (t?.withheld && opts.token === undefined) throw withheldTokenError(t);
      if (t?.tokenRef && !t.token && opts.token === undefined) {
        throw new CliError(
          `Profile ${t.profile}'s token is kept in the OS keychain, which cannot be read here.`,
          EXIT.auth,
          `Unlock the keychain, or log in again with \`wcm auth login --profile ${t.profile} --base-url ${t.baseUrl}\` (or set WCM_TOKEN).`,
        );
      }
      if (opts.requireToken !== false && !token) {
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
      if (t && io.isStderrTTY && !announced && !globals.json) {
        announced = true;
        const s = await errStyle(io);
        const who =
          t.sources.baseUrl.startsWith('profile') || !t.profile
            ? t.sources.baseUrl
            : `${t.sources.baseUrl}, profile ${t.profile}`;
        io.stderr.write(s.dim(`→ ${t.baseUrl} (${who})${t.workspace ? ` · workspace ${t.workspace}` : ''}\n`));
      }
      const { ApiClient } = await clientModule;
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
    },
    async store({ data, readOnly, url }) {
      if (url === 'embedded')
        throw new UsageError(
          '`--store embedded` is for `wcm serve`; give the other commands the postgres:// URL it printed.',
        );
      if (url) {
        const { Store } = await import('../store/store.js');
        try {
          return await Store.openShared(url);
        } catch (err) {
          return (await import('./store-errors.js')).rethrowStoreError(err);
        }
      }
      const file = dataFileOf(f, data);
      const [{ Store, StoreCorruptError }, { StoreLockedError }] = await Promise.all([
        import('../store/store.js'),
        import('../store/lock.js'),
      ]);
      if (readOnly) {
        const { promises: fs } = await import('node:fs');
        const exists = (p: string) =>
          fs.stat(p).then(
            () => true,
            () => false,
          );
        if (!(await exists(file)) && !(await exists(`${file}.journal`))) {
          throw new CliError(
            `No data file at ${file}.`,
            1,
            'Pass `--data FILE`, or run `wcm serve` once to create one.',
          );
        }
      }
      try {
        return readOnly ? await Store.openReadOnly(file) : await Store.open(file);
      } catch (err) {
        if (err instanceof StoreLockedError || err instanceof StoreCorruptError) throw new CliError(err.message);
        throw err;
      }
    },
    async workspace() {
      const t = await f.target();
      if (!t.workspace) {
        // None from a flag, the environment or a profile of this origin: the token's only workspace,
        // as `auth login` and `wcm mcp` choose it. `client()` stops first when there is no token
        // (exit 4, not logged in) or the saved one belongs to another origin.
        const client = await f.client();
        const reach = await client.call('getMe').then(
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
      // Checked like every other id, before a request: a typo is not a 404 from the server.
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(t.workspace)) {
        throw new UsageError(
          `The workspace (from ${t.sources.workspace}) must be a workspace id (a UUID); received \`${t.workspace}\`.`,
          '`wcm auth status` lists the workspaces your token reaches.',
        );
      }
      return t.workspace;
    },
  };
  return f;
}

/** For a profile of `auth login --web` with a refresh token: how to renew its access token when the server refuses it. */
async function oauthRenewal(f: Factory, t: Target | null): Promise<(() => Promise<string>) | undefined> {
  if (!t?.profile || (t.storage !== 'file' && t.storage !== 'keychain')) return undefined;
  const profiles = await f.profiles();
  const o = profiles.get(t.profile)?.oauth;
  if (!o?.refresh_token && !o?.refresh_ref) return undefined;
  return async () => (await import('./oauth-login.js')).refreshProfileToken(profiles, t.profile!, f.env);
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
