/**
 * State that must hold across every `wcm serve` process on one database (docs/sandbox.md): rate-limit
 * buckets, dashboard sessions and idempotency keys in flight. Each table has its backend here;
 * SHARED_TABLES and CLAIM_TABLES create the tables.
 * Only types come from `postgres`: the caller hands in its connection, so nothing here loads it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Sql, TransactionSql } from 'postgres';
import type {
  Claimed,
  IdempotencyClaims,
  Rate,
  RateLimitBackend,
  SessionBackend,
  Spent,
  StoredSession,
} from '../shared-state.js';
import { unavailable } from './errors.js';

/** A bucket untouched for this long has refilled completely, so it can go. */
const FULL_AFTER_MS = 60_000;

/**
 * The shared tables' statements (idempotent; migration 2, run with the others as one query).
 * Rate-limit buckets are UNLOGGED: they are written on every public request, and losing them in
 * a database crash only gives every client a full bucket again. Sessions are keyed by a hash of
 * the session id: the id is the cookie, which a reader of the database must not get; `used` is
 * their order of last use (a sequence, so sessions used in the same millisecond are still ordered).
 */
export const SHARED_TABLES = `
    create unlogged table if not exists wcm_rate_limits (
      client text not null,
      route text not null,
      tokens double precision not null,
      at bigint not null,
      spent boolean not null,
      primary key (client, route)
    );
  create index if not exists wcm_rate_limits_at on wcm_rate_limits (at);
  create table if not exists wcm_sessions (
      id_sha256 bytea primary key,
      user_id text not null,
      path text not null,
      token_id text,
      expires_at bigint not null,
      cookie_at bigint not null,
      used bigserial not null
    );
  create index if not exists wcm_sessions_expires_at on wcm_sessions (expires_at);
  create index if not exists wcm_sessions_used on wcm_sessions (used)`;

/** Creates the shared tables (SHARED_TABLES) in one query; run again, changes nothing. */
export async function migrate(sql: Sql | TransactionSql): Promise<void> {
  await sql.unsafe(SHARED_TABLES);
}

/** Token buckets in `wcm_rate_limits`: every process spends from the same bucket. */
export class PgRateLimits implements RateLimitBackend {
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(private readonly sql: Sql) {}

  /** Refill and spend in one statement: the row lock of the upsert orders concurrent requests. */
  async spend(client: string, route: string, now: number, rate: Rate): Promise<Spent> {
    // A database that cannot be reached is a 503 `store_unavailable`, as for the request's sync.
    return unavailable(() => this.trySpend(client, route, now, rate));
  }

  private async trySpend(client: string, route: string, now: number, rate: Rate): Promise<Spent> {
    if (Math.abs(now - this.lastPrune) >= FULL_AFTER_MS) await this.prune(now);
    const { sql } = this;
    const limit = sql`${rate.limit}::float8`;
    const refilled = sql`least(${limit}, b.tokens + greatest(0, ${now}::bigint - b.at) / ${rate.msPerToken}::float8)`;
    const [row] = await sql<{ tokens: number; spent: boolean }[]>`
      insert into wcm_rate_limits as b (client, route, tokens, at, spent)
      values (${client}, ${route}, ${limit} - 1, ${now}::bigint, true)
      on conflict (client, route) do update set
        tokens = ${refilled} - case when ${refilled} >= 1 then 1 else 0 end,
        spent = ${refilled} >= 1,
        at = excluded.at
      returning tokens, spent`;
    return row;
  }

  async reset(): Promise<void> {
    await this.sql`delete from wcm_rate_limits`;
  }

  /** Drops full buckets (at most once a minute per process), so a spray of addresses does not grow the table for ever. */
  private async prune(now: number): Promise<void> {
    this.lastPrune = now;
    await this.sql`delete from wcm_rate_limits where at < ${now - FULL_AFTER_MS}::bigint`;
  }
}

const idHash = (id: string): Buffer => createHash('sha256').update(id).digest();

interface SessionRow {
  user_id: string;
  path: string;
  token_id: string | null;
  expires_at: string;
  cookie_at: string;
}

/** Dashboard and consent-page sessions in `wcm_sessions`: one signed in on any process is signed in on all. */
export class PgSessions implements SessionBackend {
  constructor(private readonly sql: Sql) {}

  async touch(id: string, path: string, now: number, expiresAt: number): Promise<StoredSession | undefined> {
    const h = idHash(id);
    const [row] = await unavailable(
      () => this.sql<SessionRow[]>`
      with expired as (
        delete from wcm_sessions where id_sha256 = ${h} and expires_at <= ${now}::bigint
      )
      update wcm_sessions set expires_at = ${expiresAt}::bigint, used = nextval('wcm_sessions_used_seq')
      where id_sha256 = ${h} and expires_at > ${now}::bigint
        and (path = ${path} or starts_with(${path}, path || '/'))
      returning user_id, path, token_id, expires_at, cookie_at`,
    );
    if (!row) return undefined;
    return {
      id,
      userId: row.user_id,
      path: row.path,
      tokenId: row.token_id,
      expiresAt: Number(row.expires_at),
      cookieAt: Number(row.cookie_at),
    };
  }

  async add(s: StoredSession, now: number, max: number): Promise<void> {
    await unavailable(() => this.addRow(s, now, max));
  }

  private async addRow(s: StoredSession, now: number, max: number): Promise<void> {
    await this.sql.begin(async (sql) => {
      await sql`delete from wcm_sessions where expires_at <= ${now}::bigint`;
      // At the cap, the sessions idle longest make room.
      await sql`
        delete from wcm_sessions where id_sha256 in (
          select id_sha256 from wcm_sessions order by used desc offset ${max - 1}
        )`;
      await sql`
        insert into wcm_sessions (id_sha256, user_id, path, token_id, expires_at, cookie_at)
        values (${idHash(s.id)}, ${s.userId}, ${s.path}, ${s.tokenId}, ${s.expiresAt}::bigint, ${s.cookieAt}::bigint)`;
    });
  }

  async renewed(id: string, at: number): Promise<void> {
    await this.sql`update wcm_sessions set cookie_at = ${at}::bigint where id_sha256 = ${idHash(id)}`;
  }

  async remove(id: string): Promise<void> {
    await this.sql`delete from wcm_sessions where id_sha256 = ${idHash(id)}`;
  }

  async count(): Promise<number> {
    const [{ n }] = await this.sql<{ n: number }[]>`select count(*)::int as n from wcm_sessions`;
    return n;
  }
}

/** How long a claim outlives its last renewal: a process killed mid-request blocks its key this long at most. */
export const CLAIM_TTL_MS = 30_000;

/**
 * Creates `wcm_idempotency_claims` (schema version 3; version 4 makes it UNLOGGED: a claim lives for
 * one request, and a logged one cost a WAL flush per claim and per release). Keyed by the scoped
 * key's hash: no raw key is stored.
 */
export const CLAIM_TABLES = `
    create table wcm_idempotency_claims (
      id text primary key,
      body_sha256 text not null,
      owner text not null,
      expires_at timestamptz not null
    );
  create index wcm_idempotency_claims_expires_at on wcm_idempotency_claims (expires_at)`;

/**
 * Idempotency keys in flight in `wcm_idempotency_claims`: a key running on one process is in flight
 * on all. A claim is a row inserted before the handler runs (the primary key orders concurrent
 * claims) and deleted when its response is stored. It expires after `ttlMs` by the database's
 * clock, renewed every third of that while its request runs, so a killed process releases its keys.
 */
export class PgIdempotencyClaims implements IdempotencyClaims {
  private lastPrune = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly sql: Sql,
    private readonly ttlMs = CLAIM_TTL_MS,
  ) {}

  /** A database that cannot be reached is a 503 `store_unavailable`, as for the request's sync. */
  claim(id: string, fingerprint: string): Promise<Claimed> {
    return unavailable(() => this.tryClaim(id, fingerprint));
  }

  private async tryClaim(id: string, fingerprint: string): Promise<Claimed> {
    if (Math.abs(Date.now() - this.lastPrune) >= FULL_AFTER_MS) await this.prune();
    const owner = randomBytes(12).toString('base64url');
    // A claim released between our insert and our look is gone: try again, a few times at most.
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.insert(id, fingerprint, owner)) return this.held(id, owner);
      const [live] = await this.sql<{ body_sha256: string }[]>`
        select body_sha256 from wcm_idempotency_claims where id = ${id} and expires_at > clock_timestamp()`;
      if (live) return { heldFor: live.body_sha256 };
    }
    return { heldFor: fingerprint };
  }

  /** Inserts the claim, or takes over an expired one; false when a live claim holds the key. */
  private async insert(id: string, fingerprint: string, owner: string): Promise<boolean> {
    const rows = await this.sql`
      insert into wcm_idempotency_claims as c (id, body_sha256, owner, expires_at)
      values (${id}, ${fingerprint}, ${owner}, clock_timestamp() + ${this.ttlMs} * interval '1 millisecond')
      on conflict (id) do update
        set body_sha256 = excluded.body_sha256, owner = excluded.owner, expires_at = excluded.expires_at
        where c.expires_at <= clock_timestamp()
      returning 1`;
    return rows.length === 1;
  }

  private held(id: string, owner: string): Claimed {
    const { sql, ttlMs } = this;
    const renew = setInterval(() => {
      void sql`
        update wcm_idempotency_claims set expires_at = clock_timestamp() + ${ttlMs} * interval '1 millisecond'
        where id = ${id} and owner = ${owner}`.catch(() => undefined);
    }, ttlMs / 3);
    renew.unref();
    return {
      release: async () => {
        clearInterval(renew);
        await sql`delete from wcm_idempotency_claims where id = ${id} and owner = ${owner}`;
      },
    };
  }

  /** Drops claims that expired (their process died), at most once a minute per process. */
  private async prune(): Promise<void> {
    this.lastPrune = Date.now();
    await this.sql`delete from wcm_idempotency_claims where expires_at <= clock_timestamp()`;
  }
}
