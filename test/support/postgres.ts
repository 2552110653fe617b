import { randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';
import postgres from 'postgres';
import { onTestFinished } from 'vitest';

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
 * Creates a uniquely named, empty database and returns its URL. Called inside a test, it is dropped
 * when that test finishes; called from `beforeAll` (or at the top of a file), when the file's tests
 * are done.
 */
export async function freshDatabase(): Promise<TestDatabase> {
  const server = clusterUrl();
  admin ??= postgres(server, { max: 1, onnotice: () => {} });
  const name = `wcm_test_${process.pid}_${randomBytes(5).toString('hex')}`;
  await admin`create database ${admin(name)}`;
  const url = new URL(server);
  url.pathname = `/${name}`;
  const db: TestDatabase = {
    url: url.href,
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

/**
 * A store URL of its own, much cheaper than a database (a schema: `?schema=`, src/store/pg/open.ts)
 * on the run's server: what every server of the `postgres` test project gets. Dropped like
 * freshDatabase's.
 */
export async function freshSchema(): Promise<TestDatabase> {
  const server = clusterUrl();
  admin ??= postgres(server, { max: 1, onnotice: () => {} });
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
