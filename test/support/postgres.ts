import { randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';
import postgres from 'postgres';
import { onTestFinished } from 'vitest';
import { templatePrefix } from './postgres-cluster.js';

/** A database of its own for one test or test file, on the run's PostgreSQL (test/support/postgres-cluster.ts). */
export interface TestDatabase {
  /** postgres:// URL of the database (holds the password). */
  url: string;
  name: string;
  /** Drops it, ending its connections first; called by itself after the test or file, so rarely needed. */
  drop(): Promise<void>;
}

/** The run's server URL, or a clear failure saying why there is none. */
export function clusterUrl(): string {
  const url = process.env.WCM_TEST_PG_URL;
  if (url) return url;
  throw new Error(
    process.env.WCM_TEST_PG_UNAVAILABLE ??
      'WCM_TEST_PG_URL is not set: run the tests with the root vitest.config.ts (its global setup starts PostgreSQL).',
  );
}

let admin: Sql | undefined;
const live = new Set<TestDatabase>();

/**
 * Creates a uniquely named database and returns its URL: empty, or a copy of `template` (a name
 * from templateCopy). Called inside a test, it is dropped when that test finishes; called from
 * `beforeAll` (or at the top of a file), when the file's tests are done.
 */
export async function freshDatabase(template?: string): Promise<TestDatabase> {
  const name = `wcm_test_${process.pid}_${randomBytes(5).toString('hex')}`;
  const sql = adminSql();
  await (template
    ? sql`create database ${sql(name)} template ${sql(template)} ${sql.unsafe(await copyStrategy())}`
    : sql`create database ${sql(name)}`);
  const db: TestDatabase = {
    url: databaseUrl(name),
    name,
    drop: async () => {
      if (!live.delete(db)) return;
      await admin!`drop database if exists ${admin!(name)} with (force)`;
    },
  };
  live.add(db);
  try {
    onTestFinished(() => db.drop());
  } catch {
    // Not inside a test: dropped when the file's tests are done (dropLeftovers).
  }
  return db;
}

const adminSql = (): Sql => (admin ??= postgres(clusterUrl(), { max: 1, onnotice: () => {} }));

function databaseUrl(name: string): string {
  const url = new URL(clusterUrl());
  url.pathname = `/${name}`;
  return url.href;
}

/**
 * How a copy is made: file by file (PostgreSQL 15 and later; the older servers' only way). The
 * default, WAL_LOG, writes every page of the copy to the write-ahead log: slower for these small
 * databases on the test cluster, whose checkpoints cost little (fsync off, in memory).
 */
let strategy: Promise<string> | undefined;
const copyStrategy = () =>
  (strategy ??= adminSql()`show server_version_num`.then(([r]) =>
    Number(r.server_version_num) >= 150000 ? 'strategy file_copy' : '',
  ));

/** This process's templates by key, once made (or being made). */
const templates = new Map<string, Promise<string>>();

/**
 * A fresh database (as freshDatabase's) copied from this process's template `key`, which `fill`
 * makes on first use, given its URL: e.g. the store opened and seeded from fixtures by the real
 * code, then closed. A copy costs a fraction of making and seeding the store again. The template
 * lives until the run ends (a worker runs many files).
 */
export async function templateCopy(key: string, fill: (url: string) => Promise<void>): Promise<TestDatabase> {
  let made = templates.get(key);
  if (!made) {
    made = makeTemplate(key, fill);
    templates.set(key, made);
    made.catch(() => templates.delete(key));
  }
  return freshDatabase(await made);
}

async function makeTemplate(key: string, fill: (url: string) => Promise<void>): Promise<string> {
  const name = `${templatePrefix()}${process.pid}_${key}`;
  const sql = adminSql();
  await sql`drop database if exists ${sql(name)} with (force)`;
  await sql`create database ${sql(name)}`;
  await fill(databaseUrl(name));
  return name;
}

/**
 * A store URL of its own, much cheaper than a database (a schema: `?schema=`, src/store/pg/open.ts)
 * on the run's server: what every server of the `postgres` test project gets. Dropped like
 * freshDatabase's.
 */
export async function freshSchema(): Promise<TestDatabase> {
  const server = clusterUrl();
  adminSql();
  const name = `wcm_s_${process.pid}_${randomBytes(5).toString('hex')}`;
  const url = new URL(server);
  url.searchParams.set('schema', name);
  const db: TestDatabase = {
    url: url.href,
    name,
    drop: async () => {
      if (!live.delete(db)) return;
      await admin!`drop schema if exists ${admin!(name)} cascade`;
    },
  };
  live.add(db);
  try {
    onTestFinished(() => db.drop());
  } catch {
    // Not inside a test: dropped when the file's tests are done (dropLeftovers).
  }
  return db;
}

/**
 * Drops what the file's tests left (databases made outside a test) and ends the admin connection.
 * test/support/per-file.ts calls it after every test file: a module-level afterAll here would only
 * be registered by the first file of a worker that runs files without isolation (vitest.config.ts).
 */
async function dropLeftovers(): Promise<void> {
  for (const db of [...live]) await db.drop();
  await admin?.end({ timeout: 5 });
  admin = undefined;
}
(globalThis as Record<symbol, unknown>)[Symbol.for('wcm.test.postgres.leftovers')] = dropLeftovers;
