import type { Store } from '../store.js';
import { isUnavailable, StoreUnavailableError } from './errors.js';
import { sharedHost } from './host.js';
import { PgLog } from './log.js';
import { migrate } from './migrations.js';

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

/** Connects, brings the schema up to date and loads the state (the `postgres` driver is loaded only now). */
export async function openLog(url: string, store: Store): Promise<PgLog> {
  const { default: postgres } = await import('postgres');
  const sql = postgres(url, {
    max: 8,
    onnotice: () => undefined,
    connect_timeout: 10,
    idle_timeout: 30,
    connection: { application_name: 'wcm' },
  });
  try {
    await migrate(sql);
    const log = new PgLog(sql, sharedHost(store));
    await log.load();
    return log;
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => undefined);
    if (isUnavailable(err) || err instanceof StoreUnavailableError)
      throw new StoreUnavailableError(
        `cannot reach ${displayUrl(url)}: ${(err as { code?: string }).code ?? (err as Error).message}`,
      );
    throw err;
  }
}
