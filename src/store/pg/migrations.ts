import type { Sql } from 'postgres';
import { CLAIM_TABLES, SHARED_TABLES } from './shared-tables.js';
import { RECORD_TABLES } from './records.js';
import { THREAD_TABLES } from './threads.js';
import { CLAIM_FUNCTION } from './one-trip.js';

/**
 * The schema, as versioned steps applied in order, each recorded in `wcm_migrations`. All of them
 * run in one transaction under an advisory lock, so processes starting together apply them once.
 * Each step is SQL text with no parameters: the steps due go to the server as ONE query (a fresh
 * schema's twenty-odd statements cost one round trip, not one each).
 * Append new steps; never edit one that has shipped.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; ddl: string }> = [
  {
    version: 1,
    name: 'journal and base',
    ddl: `create table wcm_journal (seq bigint primary key, ops text not null);
  create table wcm_base (chunk integer primary key, seq bigint not null, data bytea not null);
  create table wcm_settings (key text primary key, value jsonb not null);
  create table wcm_named_snapshots (name text not null, chunk integer not null, created_at timestamptz not null default now(), data bytea not null, primary key (name, chunk))`,
  },
  { version: 2, name: 'rate limits and sessions', ddl: SHARED_TABLES },
  { version: 3, name: 'idempotency keys in flight', ddl: CLAIM_TABLES },
  // Claims are written twice per keyed request: unlogged, their commits need no WAL flush (shared-tables.ts).
  { version: 4, name: 'idempotency claims unlogged', ddl: 'alter table wcm_idempotency_claims set unlogged' },
  { version: 5, name: 'threads in their own table', ddl: THREAD_TABLES },
  { version: 6, name: 'records in a table, with their index keys', ddl: RECORD_TABLES },
  // Every created record paid an insertion into this index; only an export read it, which can sort.
  { version: 7, name: 'no export-order index on records', ddl: 'drop index wcm_records_order' },
  // A batch of record writes in one statement, one round trip, when nothing moved (one-trip.ts).
  { version: 8, name: 'write lock claimed without waiting', ddl: CLAIM_FUNCTION },
];

const MIGRATION_LOCK = 0x77636d2; // distinct from the write lock

export class SchemaTooNewError extends Error {}

/** Brings the database's schema up to this binary's; refuses a newer one. Returns the versions applied. */
export async function migrate(sql: Sql): Promise<number[]> {
  return sql.begin(async (tx) => {
    const q = tx as unknown as Sql;
    // The lock, the table and the versions in one query (no parameters: the simple protocol, one
    // round trip); its answer is the last statement's rows.
    const answers = (await q.unsafe(`select pg_advisory_xact_lock(${MIGRATION_LOCK}, hashtext(current_schema()));
      create table if not exists wcm_migrations (version integer primary key, name text not null, applied_at timestamptz not null default now());
      select version from wcm_migrations`)) as unknown as Array<Array<{ version: number }>>;
    const done = new Set(answers[answers.length - 1].map((r) => r.version));
    const known = Math.max(...MIGRATIONS.map((m) => m.version));
    const newest = Math.max(0, ...done);
    if (newest > known)
      throw new SchemaTooNewError(
        `The database's schema is at version ${newest}, newer than this wcm knows (${known}). Upgrade wcm, or point --store at another database.`,
      );
    const due = MIGRATIONS.filter((m) => !done.has(m.version));
    if (due.length)
      await q.unsafe(
        due
          .map((m) => `${m.ddl};\ninsert into wcm_migrations (version, name) values (${m.version}, ${literal(m.name)})`)
          .join(';\n'),
      );
    return due.map((m) => m.version);
  });
}

/** A string as an SQL literal (the steps' names: no parameters in a multi-statement query). */
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`;
