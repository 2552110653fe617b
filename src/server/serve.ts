import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { ABILITIES } from '../contract/enums.js';
import { hashToken, tokenId } from '../store/fixtures/import.js';
import { checkFixturesExist, seedEngine } from '../store/fixtures/seed.js';
import type { StoreOptions } from '../store/json/store.js';
import { isEmptyStore, type Loaded, type StoreEngine } from '../store/engine/interface.js';
import { openStore } from '../store/open.js';
import type { PostgresEngine } from '../store/postgres/engine.js';
import type { Records } from '../store/fixtures/import.js';
import type { TokenRecord } from '../store/records.js';
import { App, type Call, type Middleware, type Routes } from './app.js';
import { systemClock, type Clock, type ExtraServices } from './context.js';
import { MovableClock } from './emulator/clock.js';
import { errorLog } from './error-log.js';
import { SEED_FILES_SETTING } from './emulator/state.js';
import { listen, type RunningServer } from './http.js';
import { newSecret } from './ids.js';
import { checkTrustOptions, isWildcardBind, makeTrust, socketOrigin, type TrustOptions } from './trust/config.js';

export interface LocalServerOptions extends TrustOptions {
  dataFile: string;
  /** A postgres:// URL: the records are kept in that database, shared with other processes (`--store`). */
  storeUrl?: string;
  host?: string;
  port?: number;
  seeds?: string[];
  rateLimit?: number;
  payments?: 'local' | 'stripe';
  clock?: Clock;
  env?: NodeJS.ProcessEnv;
  storeOptions?: StoreOptions;
  /** Extra services, middleware (faults, rate limits, idempotency, the request log) and routes that areas provide. */
  extend?: (ctx: { db: StoreEngine; clock: Clock; options: LocalServerOptions }) => Promise<{
    services?: ExtraServices;
    use?: Middleware[];
    around?: Middleware<Call>[];
    routes?: Routes[];
    notes?: string[];
  }>;
  log?: (line: string) => void;
  /** Keep request bodies (masked) in the emulator's request log (`wcm serve --log-bodies`). */
  logBodies?: boolean;
}

export interface LocalServer extends RunningServer {
  app: App;
  /** The origin clients use (`--public-url`, else the socket's): OAuth issuer, links, redirects. */
  origin: string;
  /** The store, behind its interface (the JSON file's engine, or PostgreSQL's). */
  db: StoreEngine;
  /** What happened at start (seeded, bootstrapped token, …) for `wcm serve` to print. */
  notes: string[];
  /** Set when this start created the owner, workspace and token of an empty store. */
  bootstrap?: { token: string; workspaceId: string; userId: string };
  /** The control plane's admin token, when the extensions provide one. */
  adminToken?: string;
  /** The first token of a seeded fixture that can do everything, for profile `local`. */
  seededToken?: { token: string; workspaceId: string };
  /**
   * A seed is answered from memory while its snapshot is written: this settles once it is durable
   * (writes wait until then), or rejects if it could not be written (writes are then refused, 503).
   */
  seedDurable?: Promise<void>;
  close(): Promise<void>;
}

/** A personal access token: `wcm_pat_` + 40 base62 characters. */
export const newPersonalToken = (): string => newSecret('wcm_pat_');

/** An all-abilities token record for `userId`. */
function ownerToken(userId: string, token: string, name: string): TokenRecord {
  const sha = hashToken(token);
  return {
    id: tokenId(sha),
    token_sha256: sha,
    user_id: userId,
    name,
    abilities: [...ABILITIES],
    expires_at: null,
    revoked_at: null,
  };
}

/**
 * A fresh all-abilities token for the owner of the store's first workspace with one (`wcm local
 * token`): the way back into a store whose bootstrap token was never shown or is lost.
 */
export async function issueOwnerToken(
  db: StoreEngine,
): Promise<{ token: string; workspaceId: string; userId: string } | undefined> {
  const token = newPersonalToken();
  return db.write(async (tx) => {
    const ws = (await tx.page('workspaces', 'workspacesWithOwner', { partition: '*', limit: 1 })).items[0];
    if (!ws) return undefined;
    const userId = ws.members.find((m) => m.role === 'owner')!.user_id;
    const name = `local-token-${new Date(await tx.now()).toISOString().slice(0, 19)}`;
    await tx.create('tokens', ownerToken(userId, token, name));
    return { token, workspaceId: ws.id, userId };
  });
}

/** Whether `token` is a live (unrevoked, unexpired) token of this store. */
export async function storeHoldsToken(db: StoreEngine, token: string, now?: number): Promise<boolean> {
  return db.read(async (tx) => {
    const t = await tx.get('tokens', tokenId(hashToken(token)));
    const at = now ?? (await tx.now());
    return !!t && !t.revoked_at && (!t.expires_at || Date.parse(t.expires_at) > at);
  });
}

/** The first token of the seed files that can do everything, with a workspace its user owns. */
function firstAllPowerfulToken(
  docs: unknown[],
  seeded: ReadonlyArray<Records>,
): { token: string; workspaceId: string } | undefined {
  const workspaces = seeded.flatMap((r) => r.workspaces);
  for (const doc of docs) {
    const tokens =
      (
        doc as {
          tokens?: Array<{
            token?: string;
            user_id: string;
            abilities: string[];
            expires_at?: string | null;
            revoked_at?: string | null;
          }>;
        }
      ).tokens ?? [];
    for (const t of tokens) {
      if (!t.token || t.revoked_at || (t.expires_at && Date.parse(t.expires_at) < Date.now())) continue;
      if (!ABILITIES.every((a) => t.abilities.includes(a))) continue;
      const ws = workspaces.find((w) => w.members.some((m) => m.user_id === t.user_id && m.role === 'owner'));
      if (ws) return { token: t.token, workspaceId: ws.id };
    }
  }
  return undefined;
}

/**
 * Opens the store, seeds or bootstraps an empty one, and starts the HTTP server: what `wcm serve`
 * does, callable in-process by tests.
 */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  // One movable clock for the whole server: the control plane moves it (PUT /_emulator/clock).
  const clock = new MovableClock(options.clock ?? systemClock);
  // Flags are checked before anything is opened: a bad one is a message, not a half-started server.
  const publicUrl = checkTrustOptions(options);
  // A missing seed file is said before the store is opened: nothing is created for a typo.
  if (options.seeds?.length) await checkFixturesExist(options.seeds.map((f) => path.resolve(f)));
  // On PostgreSQL the records are the engine's tables; on a data file the engine wraps the file store.
  const db = await openStore(options.storeUrl ?? options.dataFile, {
    storeOptions: options.storeOptions,
    // The engine adds the clock's offset (a setting in the store) to the unmoved time.
    clock: () => clock.baseMs(),
  });
  const closeAll = () => db.close();
  const notes: string[] = [];
  const pg = db.kind === 'postgres' ? (db as PostgresEngine) : undefined;
  if (pg?.prepareDetected && !pg.prepare)
    notes.push(
      'prepared statements off: PostgreSQL sees this connection come from another address (a pooler such as PgBouncer, or a proxy); `?prepare=true` in the store URL turns them on where that is safe',
    );
  let bootstrap: LocalServer['bootstrap'];
  let seededToken: LocalServer['seededToken'];
  let seedDurable: Promise<void> | undefined;
  try {
    // Extensions first: their own writes (the webhook signing secret) then go ahead of a big seed.
    // (The compaction a big seed starts runs beside reads and writes alike.)
    const extra = (await options.extend?.({ db, clock, options })) ?? {};
    const app = new App({
      db,
      clock,
      services: extra.services,
      use: extra.use,
      routes: extra.routes,
      // Unexpected errors are logged here (never sent to the client); the areas' middleware is inside it.
      around: [
        errorLog((err, req) =>
          options.log?.(
            `[error] ${req.method} ${req.path} ${req.id}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
          ),
        ),
        ...(extra.around ?? []),
      ],
    });
    const running = await listen(app, { host: options.host, port: options.port });
    const trustNotes: string[] = [];
    // Set before this continuation yields, so no request is ever read without it.
    const address = new URL(running.url).hostname.replace(/^\[|\]$/g, '');
    const fromSocket = socketOrigin(options.host ?? '127.0.0.1', address, running.port);
    // Where this machine reaches the socket (profile `local`, `wcm listening on`): its address, 127.0.0.1 for a wildcard.
    const reachable = isWildcardBind(address) ? `http://127.0.0.1:${running.port}` : new URL(running.url).origin;
    app.trust = makeTrust(publicUrl ?? fromSocket.origin, options);
    if (!publicUrl && fromSocket.warning) trustNotes.push(fromSocket.warning);
    if (app.trust.allowedHosts.includes('*'))
      trustNotes.push(
        'warning: --allowed-host * answers requests for any host name, so DNS rebinding is not blocked: list the names instead',
      );
    // Bind first, write after (issue 37): a start that cannot bind (port in use) must leave an
    // empty store empty, so the retry still creates the owner and prints its token. Nothing can
    // be served before the `listening` line anyway, and requests meanwhile find no tokens.
    try {
      if (options.seeds?.length) {
        // The files are streamed; their tokens (in clear) are kept for the one printed below.
        const docs: unknown[] = [];
        // Big ones in the background on a data file: reads are answered from memory while the
        // snapshot is written, writes wait until it is durable. The files are remembered for `POST
        // /_emulator/reset {"to": "seed"}` in the same load: never the one without the other.
        const files = options.seeds.map((f) => path.resolve(f));
        const also: Loaded[] = [['settings', { id: SEED_FILES_SETTING, value: files }]];
        // Loaded only if the store is still empty inside the load: of servers starting together
        // on one empty database, one seeds and the others find the data there.
        const seeded = !(await db.read(isEmptyStore))
          ? undefined
          : await seedEngine(db, options.seeds, {
              checked: (f) => docs.push({ tokens: f.tokens }),
              also,
              background: (durable) => (seedDurable = durable),
            });
        if (seeded) {
          notes.push(
            `seeded from ${options.seeds.join(', ')}: ${Object.entries(seeded.counts)
              .map(([k, v]) => `${v} ${k}`)
              .join(', ')}`,
          );
          seededToken = firstAllPowerfulToken(docs, seeded.records);
          seedDurable ??= Promise.resolve();
          seedDurable.catch((err: unknown) => options.log?.(`[error] ${(err as Error).message}`));
        } else {
          seedDurable = undefined;
          notes.push(`the store already holds data, so --seed was not applied (use \`wcm local import\` to add to it)`);
        }
      } else if (await db.read(isEmptyStore)) {
        const token = newPersonalToken();
        const userId = `usr_${randomBytes(6).toString('hex')}`;
        const workspaceId = randomUUID();
        const name = (() => {
          try {
            return os.userInfo().username || 'owner';
          } catch {
            return 'owner';
          }
        })();
        // A load into an empty store only: of processes starting together on one database, one creates the owner.
        const created = await db.load(
          ['users', 'workspaces', 'tokens'],
          [
            ['users', { id: userId, name, email: `${name}@localhost` }],
            [
              'workspaces',
              {
                id: workspaceId,
                name: 'Local workspace',
                stripe_account_id: null,
                members: [{ user_id: userId, role: 'owner' }],
              },
            ],
            ['tokens', ownerToken(userId, token, 'local-owner')],
          ],
          { ifEmpty: true },
        );
        if (created) bootstrap = { token, workspaceId, userId };
      }
    } catch (err) {
      await running.close();
      throw err;
    }
    notes.push(...(extra.notes ?? []), ...trustNotes);
    return {
      ...running,
      url: `${reachable}/v1`,
      origin: app.trust.origin,
      app,
      db,
      notes,
      adminToken: typeof extra.services?.adminToken === 'string' ? extra.services.adminToken : undefined,
      bootstrap,
      seededToken,
      seedDurable,
      close: async () => {
        await running.close();
        await closeAll();
      },
    };
  } catch (err) {
    await closeAll().catch(() => undefined);
    throw err;
  }
}
