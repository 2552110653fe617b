import type { CollectionName } from '../records.js';
import type { StoreView as Store } from '../view.js';
import { isUnavailable, StoreUnavailableError } from './errors.js';
import { sharedHost } from './host.js';
import { PgLog } from './log.js';
import { migrate } from './migrations.js';
import { pgRecords } from './record-reads.js';
import { RECORD_TABLE_COLLECTIONS } from './records.js';
import { pgThreads } from './threads.js';

/** The URL as it may be shown: the password replaced by `***`. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:\/\/([^:/@]*):[^@]*@/, '://$1:***@');
  }
}

/**
 * Connects, brings the schema up to date and loads the state (the `postgres` driver is loaded only
 * now). `tabled`: the collections kept in `wcm_records` (tests move others there ahead of their readers).
 */
export async function openLog(
  url: string,
  store: Store,
  tabled: ReadonlySet<CollectionName> = RECORD_TABLE_COLLECTIONS,
): Promise<PgLog> {
  const { default: postgres } = await import('postgres');
  const { base, schema } = splitSchema(url);
  const pool = (max: number, settings: Record<string, string> = {}) =>
    postgres(base, {
      max,
      onnotice: () => undefined,
      connect_timeout: 10,
      idle_timeout: 30,
      connection: { application_name: 'wcm', ...(schema ? { search_path: schema } : {}), ...settings },
    });
  const sql = pool(8);
  // The one-statement batches' connection (one-trip.ts): one batch at a time per process. Left to
  // choose, PostgreSQL plans that statement afresh on every run (its arrays' sizes make a custom
  // plan look cheaper), which doubled its CPU per batch; its generic plan is the same every time.
  const writer = pool(1, { plan_cache_mode: 'force_generic_plan' });
  try {
    if (schema) await sql`create schema if not exists ${sql(schema)}`;
    await migrate(sql);
    store.tabled = tabled;
    const log = new PgLog(sql, sharedHost(store), writer);
    // The threads are read from their table, never held (threads.ts).
    store.threads = pgThreads(
      () => log.sql,
      () => store.seq,
    );
    // So are the records of the collections moved to their table (records.ts); the others from memory.
    store.records = pgRecords(
      () => log.sql,
      () => store.seq,
      store.records,
      tabled,
    );
    await log.open();
    return log;
  } catch (err) {
    await Promise.all([sql, writer].map((c) => c.end({ timeout: 1 }).catch(() => undefined)));
    if (isUnavailable(err) || err instanceof StoreUnavailableError)
      throw new StoreUnavailableError(
        `cannot reach ${displayUrl(url)}: ${(err as { code?: string }).code ?? (err as Error).message}`,
      );
    throw err;
  }
}

/**
 * `?schema=NAME` keeps wcm's tables in that schema of the database (several sandboxes in one
 * database; the tests give each server its own). Without it they go in the default (`public`).
 */
export function splitSchema(url: string): { base: string; schema?: string } {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return { base: url };
  }
  const schema = u.searchParams.get('schema');
  if (schema === null) return { base: url };
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw new Error(
      `The schema in the store URL must be 1 to 63 lower-case letters, digits or _; received \`${schema}\`.`,
    );
  u.searchParams.delete('schema');
  return { base: u.href, schema };
}
