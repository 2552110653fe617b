import type { Sql } from 'postgres';
import { migrateClaims, migrate as migrateShared } from './shared-tables.js';
import { createRecordTables } from './records.js';
import { createThreadTables } from './threads.js';

/**
 * The schema, as versioned steps applied in order, each recorded in `wcm_migrations`. All of them
 * run in one transaction under an advisory lock, so processes starting together apply them once.
 * Append new steps; never edit one that has shipped.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; up: (sql: Sql) => Promise<unknown> }> = [
  {
    version: 1,
    name: 'journal and base',
    up: async (sql) => {
      await sql`create table wcm_journal (seq bigint primary key, ops text not null)`;
      await sql`create table wcm_base (chunk integer primary key, seq bigint not null, data bytea not null)`;
      await sql`create table wcm_settings (key text primary key, value jsonb not null)`;
      await sql`create table wcm_named_snapshots (name text not null, chunk integer not null, created_at timestamptz not null default now(), data bytea not null, primary key (name, chunk))`;
    },
  },
  { version: 2, name: 'rate limits and sessions', up: (sql) => migrateShared(sql) },
  { version: 3, name: 'idempotency keys in flight', up: (sql) => migrateClaims(sql) },
  // Claims are written twice per keyed request: unlogged, their commits need no WAL flush (shared-tables.ts).
  {
    version: 4,
    name: 'idempotency claims unlogged',
    up: (sql) => sql`alter table wcm_idempotency_claims set unlogged`,
  },
  { version: 5, name: 'threads in their own table', up: (sql) => createThreadTables(sql) },
  { version: 6, name: 'records in a table, with their index keys', up: (sql) => createRecordTables(sql) },
];

const MIGRATION_LOCK = 0x77636d2; // distinct from the write lock

export class SchemaTooNewError extends Error {}

/** Brings the database's schema up to this binary's; refuses a newer one. Returns the versions applied. */
export async function migrate(sql: Sql): Promise<number[]> {
  return sql.begin(async (tx) => {
    const q = tx as unknown as Sql;
    await q`select pg_advisory_xact_lock(${MIGRATION_LOCK}, hashtext(current_schema()))`;
    await q`create table if not exists wcm_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now())`;
    const done = new Set(
      (await q<Array<{ version: number }>>`select version from wcm_migrations`).map((r) => r.version),
    );
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    const newest = Math.max(0, ...done);
    if (newest > known)
      throw new SchemaTooNewError(
        `The database's schema is at version ${newest}, newer than this wcm knows (${known}). Upgrade wcm, or point --store at another database.`,
      );
    const applied: number[] = [];
    for (const m of MIGRATIONS) {
      if (done.has(m.version)) continue;
      await m.up(q);
      await q`insert into wcm_migrations (version, name) values (${m.version}, ${m.name})`;
      applied.push(m.version);
    }
    return applied;
  });
}
