import type { ApiClient } from '../client/client.js';
import type { StoreEngine } from '../store/engine/interface.js';
import type { ProfileStore } from './config.js';
import type { IO } from './io.js';
import { openEngine } from './local.js';
import { loadTarget, targetWorkspace, type Target } from './target.js';

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
  /** The JSON data file (`data`) or the PostgreSQL store at `url`, opened behind the store's interface (local.ts `openEngine`). */
  store(opts: { data?: string; readOnly?: boolean; url?: string }): Promise<StoreEngine>;
}

export { packageVersion } from '../version.js';
import { packageVersion } from '../version.js';

/**
 * The factory itself only loads and caches: each getter hands over to the module that owns the
 * policy (`loadTarget` and `targetWorkspace` in target.ts, `clientFor` in api-client.ts, `openEngine`
 * in local.ts).
 */
export function createFactory(io: IO, env: NodeJS.ProcessEnv, globals: GlobalFlags, cwd = process.cwd()): Factory {
  let profiles: Promise<ProfileStore> | null = null;
  let target: Promise<Target> | null = null;
  const announced = { done: false };
  const f: Factory = {
    io,
    env,
    cwd,
    version: packageVersion(),
    globals,
    profiles: () => (profiles ??= import('./config.js').then((m) => m.ProfileStore.open(env))),
    target: () => (target ??= f.profiles().then((p) => loadTarget(globals, env, p))),
    async client(opts = {}) {
      // Start loading the client (node:http, the route table) while the profiles are read.
      const made = import('./api-client.js');
      made.catch(() => undefined);
      const t = opts.baseUrl ? null : await f.target();
      return (await made).clientFor(f, t, opts, announced);
    },
    store: (opts) => openEngine(f, opts),
    workspace: async () => targetWorkspace(await f.target(), () => f.client()),
  };
  return f;
}
