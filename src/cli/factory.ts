import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ApiClient } from '../client/client.js';
import type { ProfileStore } from './config.js';
import { UsageError } from './errors.js';
import type { IO } from './io.js';
import { errStyle } from './output.js';
import { resolveTarget, type Target } from './target.js';

/** Flags every command accepts. */
export interface GlobalFlags {
  json?: boolean;
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
  /** A client for the resolved target; announces the target on stderr when it is a terminal. */
  client(opts?: { requireToken?: boolean }): Promise<ApiClient>;
  /** The workspace to act on, or a usage error saying how to set one. */
  workspace(): Promise<string>;
}

let cachedVersion: string | null = null;
export function packageVersion(): string {
  if (cachedVersion) return cachedVersion;
  // Built: dist/src/cli/factory.js; in tests (vitest runs the sources): src/cli/factory.ts.
  for (const rel of ['../../../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(fileURLToPath(new URL(rel, import.meta.url)), 'utf8')) as { name?: string; version: string };
      if (pkg.name === 'wcm') return (cachedVersion = pkg.version);
    } catch {
      // not at this level: try the next
    }
  }
  cachedVersion = '0.0.0';
  return cachedVersion;
}

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
    target: () => (target ??= f.profiles().then((p) => resolveTarget(globals, env, p))),
    async client(opts = {}) {
      const t = await f.target();
      if (opts.requireToken !== false && !t.token) {
        throw new UsageError(
          `No token for ${t.baseUrl}.`,
          'Run `wcm auth login` (or set WCM_TOKEN). For a local server, `wcm serve` saves profile `local` on first run.',
        );
      }
      if (io.isStderrTTY && !announced && !globals.json) {
        announced = true;
        const s = await errStyle(io);
        const who = t.profile ? `profile ${t.profile}` : t.sources.baseUrl;
        io.stderr.write(s.dim(`→ ${t.baseUrl} (${who})${t.workspace ? ` · workspace ${t.workspace}` : ''}\n`));
      }
      const { ApiClient } = await import('../client/client.js');
      const token = t.token;
      return new ApiClient({
        baseUrl: t.baseUrl,
        token,
        userAgent: `wcm/${f.version}`,
        env,
        debug: globals.debug ? (line) => io.stderr.write(`[debug] ${token ? line.split(token).join('[REDACTED]') : line}\n`) : undefined,
        retries: env.WCM_RETRIES !== undefined ? Number(env.WCM_RETRIES) : undefined,
        maxRetryWaitMs: env.WCM_MAX_RETRY_WAIT_MS !== undefined ? Number(env.WCM_MAX_RETRY_WAIT_MS) : undefined,
      });
    },
    async workspace() {
      const t = await f.target();
      if (!t.workspace) {
        throw new UsageError('No workspace chosen.', 'Pass `--workspace ID`, set WCM_WORKSPACE, or save one in the profile with `wcm auth login --workspace ID`.');
      }
      return t.workspace;
    },
  };
  return f;
}
