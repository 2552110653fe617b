/**
 * The backends of state every `wcm serve` process on one database must share (docs/sandbox.md): the
 * server's rate-limit buckets, page sessions and idempotency keys in flight. Their types live here, below the server, so the
 * PostgreSQL backends (pg/shared-tables.ts) implement them without importing the server.
 */

/** How fast a bucket refills: `limit` tokens at most, one more every `msPerToken`. */
export interface Rate {
  limit: number;
  msPerToken: number;
}

/** A bucket after a request: the tokens left (fractional) and whether the request got one. */
export interface Spent {
  tokens: number;
  spent: boolean;
}

/**
 * Where the buckets live: this process's memory (the default), or a database shared by every
 * process (pg/shared-tables.ts), so that a limit holds across them.
 */
export interface RateLimitBackend {
  /**
   * Refills the bucket of `client` on `route` up to `now` (epoch ms), then spends one token if a
   * whole one is there; the two steps are one atomic step for concurrent requests. The memory
   * backend answers synchronously: awaiting it cost a microsecond per public request.
   */
  spend(client: string, route: string, now: number, rate: Rate): Spent | Promise<Spent>;
  /** Every bucket is full again. */
  reset(): Promise<void>;
}

/** A session as a backend keeps it: its CSRF token is derived again from the id when it is read. */
export interface StoredSession {
  id: string;
  userId: string;
  /** Epoch milliseconds, by the server's clock: one idle period after the last request. */
  expiresAt: number;
  /** The mount path its cookie was set for; the session is not valid elsewhere. */
  path: string;
  /** The personal access token signed in with (off loopback): the session is limited by it and ends with it. */
  tokenId: string | null;
  /** When its cookie was last (re)set, epoch milliseconds: the cookie is renewed while the session is in use. */
  cookieAt: number;
}

/**
 * Where sessions live: this process's memory (the default: a restart signs everyone out), or a
 * database shared by every process (pg/shared-tables.ts), so a session started on one is
 * valid on all. Times are epoch milliseconds by the server's clock.
 */
export interface SessionBackend {
  /**
   * The session `id` if it is live at `now` and `path` is under its path; its idle expiry then
   * moves to `expiresAt`. An expired one is removed.
   */
  touch(id: string, path: string, now: number, expiresAt: number): Promise<StoredSession | undefined>;
  /** Keeps a new session; expired ones go, and while `max` are kept the one idle longest goes. */
  add(session: StoredSession, now: number, max: number): Promise<void>;
  /** Its cookie was set again at `at`. */
  renewed(id: string, at: number): Promise<void>;
  remove(id: string): Promise<void>;
  /** Sessions kept (expired ones not yet removed included). */
  count(): Promise<number>;
}

/** What a claim on an idempotency key got: the key to run the request, or the body of the request holding it. */
export type Claimed = { release(): Promise<void> } | { heldFor: string };

/**
 * Idempotency keys whose request is running on some process (PostgreSQL only: a single process
 * keeps them in a map and pays nothing for this). A claim lasts until it is released, and expires
 * by itself when its process dies without releasing it.
 */
export interface IdempotencyClaims {
  /** Claims the scoped key `id` for a request whose body hashes to `fingerprint`, unless a live claim holds it. */
  claim(id: string, fingerprint: string): Promise<Claimed>;
}
