/**
 * wcm as a library: start the local server inside a test runner (docs/server.md: In a test runner).
 *
 *   import { startServer } from 'wcm';
 *   const server = await startServer({ seed: ['fixtures/demo.json'] });
 *   // … server.baseUrl, server.token …
 *   await server.reset('seed');
 *   await server.close();
 *
 * The same code path as `wcm serve` (startLocalServer with the same extensions).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { LogFilter as RequestFilter, LoggedRequest } from './server/emulator/log.js';
import { extendServer } from './server/extend.js';
import { startLocalServer } from './server/serve.js';

export type { LogFilter as RequestFilter, LoggedRequest } from './server/emulator/log.js';

export interface StartServerOptions {
  /** Store fixtures to load into an empty store (docs/fixtures.md). */
  seed?: string[];
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A data file to keep; without one the store lives in a temp directory removed by `close()`. */
  data?: string;
  /** Public requests per minute per client and route (default 60). */
  rateLimit?: number;
  /** Keep masked request bodies in the request log. */
  logBodies?: boolean;
  /** Environment for the server (WCM_ADMIN_TOKEN, STRIPE_SECRET_KEY, …); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The origin clients use, as `wcm serve --public-url` (docs/security.md: Host, Origin and CORS). */
  publicUrl?: string;
  /** Host names answered beside the built-in ones, as `--allowed-host`. */
  allowedHosts?: string[];
  /** Web origins trusted beside the server's own and loopback ones, as `--allowed-origin`. */
  allowedOrigins?: string[];
  /** Proxies (addresses or CIDR ranges) whose `X-Forwarded-For` names the client, as `--trust-proxy`. */
  trustProxy?: string[];
}

export interface StartedServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** A token with every ability: the seed's first one, or the owner's created for an empty store. */
  token: string | undefined;
  /** That token's workspace. */
  workspace: string | undefined;
  /** The control plane's admin token. */
  adminToken: string;
  /** Replaces the whole state: `empty` (default), `seed`, or a snapshot name. */
  reset(to?: string): Promise<Record<string, number>>;
  /** Saves the whole state as a named snapshot (for `reset(name)`). */
  snapshot(name: string): Promise<void>;
  /** The request log, oldest first (the last 10,000 requests). */
  requests(filter?: RequestFilter): Promise<LoggedRequest[]>;
  /** Stops the server, flushes the store, removes the temp directory. */
  close(): Promise<void>;
}

export async function startServer(options: StartServerOptions = {}): Promise<StartedServer> {
  const temp = options.data ? undefined : mkdtempSync(path.join(tmpdir(), 'wcm-server-'));
  const dataFile = options.data ?? path.join(temp!, 'store.json');
  let server;
  try {
    server = await startLocalServer({
      dataFile,
      host: options.host,
      port: options.port ?? 0,
      seeds: options.seed?.map((s) => path.resolve(s)),
      rateLimit: options.rateLimit,
      env: options.env ?? process.env,
      logBodies: options.logBodies,
      publicUrl: options.publicUrl,
      allowedHosts: options.allowedHosts,
      allowedOrigins: options.allowedOrigins,
      trustProxy: options.trustProxy,
      extend: extendServer,
    });
  } catch (err) {
    if (temp) rmSync(temp, { recursive: true, force: true });
    throw err;
  }
  const s = server;
  const origin = new URL(s.url).origin;
  const adminToken = s.adminToken!;
  const control = async <T>(method: string, p: string, body?: unknown): Promise<T> => {
    const res = await s.app.handle({
      method,
      url: `/_emulator${p}`,
      headers: {
        host: new URL(origin).host,
        authorization: `Bearer ${adminToken}`,
        'content-type': 'application/json',
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = JSON.parse(res.body || '{}');
    if (res.status >= 400)
      throw new Error(`${method} /_emulator${p}: ${parsed.title ?? res.status}: ${parsed.detail ?? ''}`);
    return parsed.data as T;
  };
  return {
    url: origin,
    baseUrl: s.url,
    token: s.seededToken?.token ?? s.bootstrap?.token,
    workspace: s.seededToken?.workspaceId ?? s.bootstrap?.workspaceId,
    adminToken,
    reset: async (to = 'empty') =>
      (await control<{ records: Record<string, number> }>('POST', '/reset', { to })).records,
    snapshot: async (name) => {
      await control('POST', '/snapshots', { name });
    },
    requests: (filter = {}) => {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(filter)) if (v !== undefined) q.set(k, String(v));
      return control<LoggedRequest[]>('GET', `/requests?${q.size ? q : 'limit=10000'}`);
    },
    close: async () => {
      await s.close();
      if (temp) rmSync(temp, { recursive: true, force: true });
    },
  };
}
