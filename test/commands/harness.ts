import { statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { CommandDef } from '../../src/cli/command.js';
import { ProfileStore } from '../../src/cli/config.js';
import { UsageError } from '../../src/cli/errors.js';
import { createFactory, type GlobalFlags } from '../../src/cli/factory.js';
import { selectJsonFields } from '../../src/cli/output.js';
import { httpStub } from '../client/stubs.js';
import { fakeIO, runInProcess, type FakeIO } from '../support/cli.js';
import { onPort, tempDir } from '../support/server.js';

/** The real server on a free port plus a private config directory, for in-process command runs. */
export async function clientHarness(opts: { fixtures?: string[] } = {}) {
  const server = await onPort({ fixtures: opts.fixtures });
  const cfg = tempDir('wcm-config-');
  const base = server.url;
  const run = (args: string[], o: { io?: FakeIO; env?: Record<string, string | undefined> } = {}) =>
    runInProcess(args, { io: o.io ?? fakeIO(), env: { WCM_CONFIG_DIR: cfg.dir, ...o.env } });
  return {
    server,
    base,
    configDir: cfg.dir,
    configFile: path.join(cfg.dir, 'config.json'),
    run,
    profiles: () => ProfileStore.open({ WCM_CONFIG_DIR: cfg.dir }),
    mode: () => statSync(path.join(cfg.dir, 'config.json')).mode & 0o777,
    async close() {
      await server.close();
      cfg.cleanup();
    },
  };
}
export type ClientHarness = Awaited<ReturnType<typeof clientHarness>>;

/** A workspace id for seam tests: the stub answers whatever it is asked. */
export const SEAM_WS = '00000000-0000-4000-8000-0000000000a1';

/**
 * The `run(options, factory)` seam: a command's run() called directly, with the real factory aimed
 * at a stub server that records each request and answers an empty list page (or `reply`). For flag
 * logic: which request a set of flags makes, and which flags are refused before any request.
 * `env` adds to (or, undefined, removes from) the stub's environment; `io` replaces the piped one
 * (a terminal with a prompter); the working directory is a fresh temp directory.
 */
export async function seamHarness(
  reply?: Parameters<typeof httpStub>[0],
  o: { env?: Record<string, string | undefined>; io?: FakeIO } = {},
) {
  const stub = await httpStub(
    reply ?? (() => ({ status: 200, body: { data: [], meta: { request_id: 'req_stub', next_cursor: null } } })),
  );
  const cfg = tempDir('wcm-seam-');
  const io = o.io ?? fakeIO();
  const env: NodeJS.ProcessEnv = {
    WCM_CONFIG_DIR: cfg.dir,
    WCM_BASE_URL: stub.base,
    WCM_TOKEN: 'wcm_pat_stub',
    WCM_WORKSPACE: SEAM_WS,
    ...o.env,
  };
  const run = async <O>(def: CommandDef<O>, opts: Partial<O> & { args?: string[] } = {}, globals: GlobalFlags = {}) => {
    // As main() does before every command: the `--json a,b` selection is the output module's, and a
    // file run earlier in the same worker (in-process tests share their modules) may have left one.
    await selectJsonFields(globals.jsonFields);
    return def.run({ args: [], ...opts } as O & { args: string[] }, createFactory(io, env, globals, cfg.dir));
  };
  return {
    stub,
    io,
    env,
    /** The working directory run() sees (files a flag names can be written here). */
    cwd: cfg.dir,
    /** Calls the command's run() with these options (positional arguments in `args`) and global flags. */
    run,
    /**
     * Runs a command that must refuse before sending anything: checks it threw a `kind` (a usage
     * error unless given) and made no request, and returns the message.
     */
    async refused<O>(
      def: CommandDef<O>,
      opts: Partial<O> & { args?: string[] } = {},
      kind: abstract new (...args: never[]) => Error = UsageError,
      globals: GlobalFlags = {},
    ): Promise<string> {
      const err = await run(def, opts, globals).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(kind);
      expect(stub.requests).toHaveLength(0);
      return (err as Error).message;
    },
    /** The n-th request's path (after /v1) and its query as an object. */
    request(n = 0) {
      const u = new URL(stub.requests[n].url, stub.url);
      return {
        method: stub.requests[n].method,
        path: u.pathname.replace(/^\/v1/, ''),
        query: Object.fromEntries(u.searchParams),
      };
    },
    /** The n-th request's JSON body (undefined when it had none). */
    body(n = 0): unknown {
      const text = stub.requests[n].body;
      return text ? JSON.parse(text) : undefined;
    },
    async close() {
      await stub.close();
      cfg.cleanup();
    },
  };
}
export type SeamHarness = Awaited<ReturnType<typeof seamHarness>>;

/** A stub answer: `data` in the envelope, as the server sends one record. */
export const record = (data: unknown) => ({ status: 200, body: { data, meta: { request_id: 'req_stub' } } });
