/*
 * Opening a store by what the user named: a postgres:// URL is the PostgreSQL engine on that
 * database (its schema brought up to date), anything else a JSON data file behind the JSON engine.
 */
import { StoreUnavailableError, type StoreEngine } from './engine/interface.js';
import { JsonEngine, type JsonEngineOptions } from './json/engine.js';
import { PostgresEngine, type PostgresEngineOptions } from './postgres/engine.js';
import { Store, type StoreOptions } from './json/store.js';

export interface OpenStoreOptions extends JsonEngineOptions {
  /** The data file's options (the JSON engine). */
  storeOptions?: StoreOptions;
  /** Open the data file read-only: no lock taken, so it works beside a server holding it (the JSON engine). */
  readOnly?: boolean;
  /** The PostgreSQL engine's options. */
  postgres?: PostgresEngineOptions;
}

/** Whether `target` names a PostgreSQL store (`postgres://` or `postgresql://`) rather than a data file. */
export const isStoreUrl = (target: string): boolean => /^postgres(ql)?:\/\//.test(target);

/**
 * The store at `target`: a postgres:// URL (PostgresEngine), else a data file (JsonEngine over the
 * file store, created if missing unless `readOnly`). A database that cannot be reached is a
 * StoreUnavailableError naming the URL with its password masked.
 */
export async function openStore(target: string, options: OpenStoreOptions = {}): Promise<StoreEngine> {
  if (isStoreUrl(target)) {
    try {
      return await PostgresEngine.open(target, options.postgres);
    } catch (err) {
      if (err instanceof StoreUnavailableError)
        throw new StoreUnavailableError(`cannot reach ${displayUrl(target)}: ${err.reason}`);
      throw err;
    }
  }
  const store = options.readOnly
    ? await Store.openReadOnly(target, options.storeOptions)
    : await Store.open(target, options.storeOptions);
  return new JsonEngine(store, options);
}

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
