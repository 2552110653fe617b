import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Page, RecordTypes, SortKey, StoreEngine } from '../store/engine/interface.js';
import { CliError, UsageError } from './errors.js';

/** The data file a `wcm local …` command works on (same default as `wcm serve`). */
export function dataFileOf(f: { cwd: string }, data: string | undefined): string {
  return path.resolve(f.cwd, data ?? '.wcm/store.json');
}

/**
 * The store a `wcm local …` command works on, behind the store's interface: the PostgreSQL store
 * at `url`, or the JSON data file `data` (default .wcm/store.json). `readOnly` (the data file)
 * takes no lock, so it works while a server runs on the file, and the file must exist. A locked,
 * corrupt or missing file, or a database that cannot be reached, is a CliError here.
 */
export async function openEngine(
  f: { cwd: string },
  { data, readOnly, url }: { data?: string; readOnly?: boolean; url?: string },
): Promise<StoreEngine> {
  if (url === 'embedded')
    throw new UsageError(
      '`--store embedded` is for `wcm serve`; give the other commands the postgres:// URL it printed.',
    );
  const { openStore: open } = await import('../store/open.js');
  if (url) {
    try {
      return await open(url);
    } catch (err) {
      return (await import('./store-errors.js')).rethrowStoreError(err);
    }
  }
  const file = dataFileOf(f, data);
  const [{ StoreCorruptError }, { StoreLockedError }] = await Promise.all([
    import('../store/json/store.js'),
    import('../store/json/lock.js'),
  ]);
  if (readOnly) await mustExist(file);
  try {
    return await open(file, { readOnly });
  } catch (err) {
    if (err instanceof StoreLockedError || err instanceof StoreCorruptError) throw new CliError(err.message);
    throw err;
  }
}

/** A data file (or its journal) that is not there: a CliError saying how to make one. */
async function mustExist(file: string): Promise<void> {
  const { promises: fs } = await import('node:fs');
  const exists = (p: string) =>
    fs.stat(p).then(
      () => true,
      () => false,
    );
  if (!(await exists(file)) && !(await exists(`${file}.journal`)))
    throw new CliError(`No data file at ${file}.`, 1, 'Pass `--data FILE`, or run `wcm serve` once to create one.');
}

/** Whether `url` (an origin or a base URL) is on this machine: 127.0.0.0/8, ::1 or `localhost`. */
export function isLoopbackUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  const host = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

export const dataOption = {
  flags: '--data <file>',
  description: 'data file (default .wcm/store.json, as for wcm serve)',
};

export const storeOption = {
  flags: '--store <url>',
  description: 'work on the PostgreSQL store at this postgres:// URL (env WCM_STORE) instead of a data file',
};

/**
 * The PostgreSQL URL a command works on (`--store`, else WCM_STORE), checked; undefined for the
 * JSON file. `--data` and `--store` together are refused: which one was meant is not clear.
 * A password on the command line is visible to every user in `ps`: `--store` with one prints a
 * warning naming WCM_STORE and password files. A password file (`?passfile=PATH` in the URL, or
 * `PGPASSFILE` for a URL without a password) is read here, in pgpass format, and the password put
 * in the URL wcm connects with (never printed: see maskUrl).
 */
export function storeUrlOf(
  f: { env: NodeJS.ProcessEnv; cwd?: string; io?: { stderr: { write(s: string): unknown } } },
  opts: { store?: string; data?: string },
): string | undefined {
  const fromFlag = opts.store !== undefined;
  const url = opts.store ?? (f.env.WCM_STORE || undefined);
  if (url === undefined) return undefined;
  const name = fromFlag ? '`--store`' : '`WCM_STORE`';
  if (opts.data !== undefined)
    throw new UsageError(`Pass either \`--data\` (a JSON data file) or ${name} (PostgreSQL), not both.`);
  if (url === 'embedded') return url;
  if (!/^postgres(ql)?:\/\/./.test(url))
    throw new UsageError(
      `${name} must be a postgres:// URL (postgres://USER:PASS@HOST:5432/DB) or \`embedded\`; received \`${maskUrl(url)}\`.`,
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${name} is not a valid URL: \`${maskUrl(url)}\`.`);
  }
  if (fromFlag && parsed.password)
    f.io?.stderr.write(
      'warning: the password in `--store` is visible to other users of this machine (`ps`). ' +
        'Set WCM_STORE instead, or keep the password in a file: `--store postgres://USER@HOST/DB?passfile=PATH` ' +
        '(pgpass format, HOST:PORT:DB:USER:PASSWORD, mode 0600) or PGPASSFILE=PATH.\n',
    );
  return withPassfile(url, parsed, f.env, f.cwd ?? process.cwd());
}

/**
 * `url` as it may be shown: the password replaced by `***`, by parsing the URL; for a string that
 * does not parse (a mistyped scheme), whatever sits between `user:` and the last `@` is masked
 * (more than the password, rather than a part of it).
 */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) {
      u.password = '***';
      return u.href;
    }
  } catch {
    // masked below
  }
  const at = url.lastIndexOf('@');
  if (at < 0) return url;
  // Only a `scheme://` is told apart; without one, all before the first `:` is taken as the user.
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.exec(url)?.[0] ?? '';
  const userinfo = url.slice(scheme.length, at);
  const colon = userinfo.indexOf(':');
  return colon < 0 ? url : `${scheme}${userinfo.slice(0, colon)}:***${url.slice(at)}`;
}

/** The URL with the password from its `?passfile=` (or PGPASSFILE), that parameter removed. */
function withPassfile(url: string, u: URL, env: NodeJS.ProcessEnv, cwd: string): string {
  const named = u.searchParams.get('passfile');
  u.searchParams.delete('passfile');
  const file = named ?? (u.password ? undefined : env.PGPASSFILE || undefined);
  if (file === undefined) return url;
  const where = path.resolve(cwd, file);
  let text: string;
  try {
    const st = statSync(where);
    if ((st.mode & 0o077) !== 0)
      throw new CliError(
        `The password file ${where} may be read by others (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}): \`chmod 600 ${where}\`.`,
      );
    text = readFileSync(where, 'utf8');
  } catch (err) {
    if (err instanceof CliError) throw err;
    throw new CliError(`Cannot read the password file ${where}: ${(err as NodeJS.ErrnoException).code ?? err}.`);
  }
  const user = decodeURIComponent(u.username) || env.PGUSER || env.USER || '';
  const db = decodeURIComponent(u.pathname.slice(1)) || user;
  const password = pgpassLookup(text, [u.hostname.replace(/^\[|\]$/g, ''), u.port || '5432', db, user]);
  if (password === undefined)
    throw new CliError(`The password file ${where} has no line for ${u.hostname}:${u.port || '5432'}:${db}:${user}.`);
  if (!u.username) u.username = encodeURIComponent(user);
  u.password = encodeURIComponent(password);
  return u.href;
}

/** The password of the first pgpass line (`host:port:database:user:password`, `*` and `\:` as libpq) that matches. */
export function pgpassLookup(text: string, want: string[]): string | undefined {
  for (const line of text.split(/\r?\n/)) {
    if (line === '' || line.startsWith('#')) continue;
    const fields: string[] = [''];
    for (let i = 0; i < line.length; i++) {
      const c = line[i]!;
      if (c === '\\' && i + 1 < line.length) fields[fields.length - 1] += line[++i];
      else if (c === ':' && fields.length < 5) fields.push('');
      else fields[fields.length - 1] += c;
    }
    if (fields.length < 5) continue;
    if (want.every((w, i) => fields[i] === '*' || fields[i] === w)) return fields[4];
  }
  return undefined;
}

/** Every record of an index's `*` partition, in its order, a page at a time (one consistent read). */
export async function allOf<C extends 'orders' | 'analytics_events'>(
  db: StoreEngine,
  c: C,
  index: C extends 'orders' ? 'ordersByCreated' : 'eventsByOccurred',
): Promise<Array<RecordTypes[C]>> {
  return db.read(async (tx) => {
    const out: Array<RecordTypes[C]> = [];
    let after: SortKey | null = null;
    for (;;) {
      const page: Page<unknown> = await tx.page(c, index as never, { partition: '*', after, limit: 500 });
      out.push(...(page.items as Array<RecordTypes[C]>));
      if (!page.more) return out;
      after = page.last;
    }
  });
}
