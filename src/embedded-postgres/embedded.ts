import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chown, lstat, mkdir, open, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { findBinaries, type PgBinaries } from './binaries.js';
import { loadPostgres } from '../store/postgres/client.js';

/** A PostgreSQL server wcm started itself (binaries: binaries.ts). */
export interface EmbeddedCluster {
  /**
   * `postgres://postgres:<password>@127.0.0.1:<port>/postgres`: the superuser, for wcm itself and
   * the tests' cluster. It holds the password: never print it nor hand it out (embedded-store.ts
   * hands out a role of its own).
   */
  url: string;
  port: number;
  /** The cluster's directory (`dir`, resolved). */
  dir: string;
  /** The server's process id (the postmaster). */
  pid: number;
  /** Fast shutdown (open transactions roll back); resolves once the server has exited. Idempotent. */
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Holds the cluster (`data/`), its password (`password`, 0600) and its log (`server.log`). */
  dir: string;
  /** A free loopback port is chosen when absent. */
  port?: number;
  /** Extra server settings (`-c name=value`), e.g. `fsync: 'off'` for throwaway test clusters. */
  settings?: Record<string, string>;
  /** How long to wait for the server to accept connections, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** The server programs to run (default: findBinaries(), which WCM_PG_BINARIES steers). */
  binaries?: PgBinaries;
}

const run = promisify(execFile);
const SUPERUSER = 'postgres';

/**
 * Starts PostgreSQL in `dir`: `initdb` on first use, the same cluster and password after. The
 * server listens on 127.0.0.1 only (no Unix socket) and runs in its own process group, so a
 * terminal's Ctrl-C reaches the caller, which stops it in turn after finishing its own work.
 * A server left running by a caller that was killed is stopped first. As root, the server runs
 * as the `postgres` user (created when missing), which must own `dir` and reach it.
 *
 * `dir` and the files wcm keeps in it must be its own: a directory or file another user owns, or
 * that others may read or write (say a `.wcm/postgres` someone pre-made 0777 with a password of
 * their choosing), is refused before anything in it is used (TrustError). wcm's files are created
 * with O_EXCL|O_NOFOLLOW and opened with O_NOFOLLOW, so a planted link is never followed. initdb
 * and the server get a minimal environment, never wcm's own (which may hold STRIPE_SECRET_KEY,
 * WCM_ADMIN_TOKEN…): a superuser can read its server's environment from /proc.
 */
export async function startEmbedded(options: EmbeddedOptions): Promise<EmbeddedCluster> {
  const bin = options.binaries ?? (await findBinaries());
  const dir = path.resolve(options.dir);
  const data = path.join(dir, 'data');
  await sameMajor(data, bin);
  const owner = await serverUser();
  const owners = ownUids(owner);
  if (!(await checkOwned(dir, 'directory', owners, owner))) {
    await mkdir(path.dirname(dir), { recursive: true, mode: 0o700 });
    await mkdir(dir, { mode: 0o700 });
  }
  // As root, a directory of root's own (checked above: no one else may enter it) is handed to the
  // server's user, which must reach the files initdb and the server read there.
  if (owner) await chown(dir, owner.uid, owner.gid);
  // Every file wcm keeps here is checked before any is used (pgpass: embedded-store.ts).
  for (const name of ['password', 'server.log', 'pgpass'])
    await checkOwned(path.join(dir, name), 'file', owners, owner);
  const password = await keptSecret(path.join(dir, 'password'), owners, owner);
  if (!(await stat(path.join(data, 'PG_VERSION')).catch(() => null))) await initdb(bin, dir, data, password, owner);
  await stopLeftover(data);
  const port = options.port ?? (await freePort());
  const child = await spawnServer(bin, dir, data, port, options.settings ?? {}, owner, owners);
  const url = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await ready(url, exited, options.timeoutMs ?? 30_000);
  } catch (err) {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`${(err as Error).message}\n${await logTail(dir)}`, { cause: err });
  }
  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    dir,
    pid: child.pid!,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
        await exited;
      })()),
  };
}

/** As root, the `postgres` user the server runs as (PostgreSQL refuses to run as root); created when missing. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async () => ({
    uid: Number((await run('id', ['-u', SUPERUSER])).stdout),
    gid: Number((await run('id', ['-g', SUPERUSER])).stdout),
  });
  try {
    return await ids();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', SUPERUSER]);
    return ids();
  }
}

/** A refusal to use a directory or file of the cluster that may not be wcm's own. */
export class TrustError extends Error {}

/** The owners wcm trusts in the cluster's directory: itself, and as root the server's user. */
function ownUids(owner: { uid: number } | undefined): number[] {
  const me = process.getuid?.();
  return [...(me === undefined ? [] : [me]), ...(owner ? [owner.uid] : [])];
}

/**
 * Whether `file` exists, after checking that it is wcm's own: of the expected kind (a symbolic
 * link is refused, never followed), owned by one of `owners`, and neither readable nor writable by
 * group or others. Otherwise a TrustError names the path, what is wrong and the fix.
 */
export async function checkOwned(
  file: string,
  kind: 'directory' | 'file',
  owners: number[],
  owner?: { uid: number },
): Promise<boolean> {
  let st;
  try {
    st = await lstat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  refuseUnowned(file, kind, st, owners, owner);
  return true;
}

function refuseUnowned(
  file: string,
  kind: 'directory' | 'file',
  st: { uid: number; mode: number; isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean },
  owners: number[],
  owner?: { uid: number },
): void {
  const fix = (why: string, how: string) =>
    new TrustError(
      `Refusing to use ${file}: ${why}. Someone else may have made it (to plant a password or a link). ` +
        `If you did not make it, remove it (\`rm -rf ${file}\`) and start again; wcm makes a fresh one. ${how}`,
    );
  const chownTo = owner ? 'postgres' : String(process.getuid?.() ?? '$(id -u)');
  if (st.isSymbolicLink() || (kind === 'directory' ? !st.isDirectory() : !st.isFile()))
    throw fix(
      st.isSymbolicLink()
        ? 'it is a symbolic link'
        : `it is not a ${kind === 'directory' ? 'directory' : 'regular file'}`,
      `wcm never follows a link there.`,
    );
  if (owners.length && !owners.includes(st.uid))
    throw fix(
      `it is owned by uid ${st.uid}, not by you (uid ${owners.join(' or ')})`,
      `If it is yours: \`chown -R ${chownTo} ${file}\`.`,
    );
  if ((st.mode & 0o077) !== 0)
    throw fix(
      `others may read or write it (mode ${(st.mode & 0o777).toString(8).padStart(4, '0')})`,
      `If it is yours: \`chmod ${kind === 'directory' ? '700' : '600'} ${file}\`.`,
    );
}

/**
 * A secret kept in `file` (readable by its owner only), made on first use: read through O_NOFOLLOW
 * and checked on the open descriptor, or created with O_EXCL|O_NOFOLLOW.
 */
export async function keptSecret(
  file: string,
  owners: number[],
  owner?: { uid: number },
  format: (secret: string) => string = (secret) => secret,
): Promise<string> {
  try {
    const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      refuseUnowned(file, 'file', await fh.stat(), owners, owner);
      return (await fh.readFile('utf8')).trim();
    } finally {
      await fh.close();
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return refuseLink(file);
    if (code !== 'ENOENT') throw err;
  }
  const text = format(randomBytes(24).toString('base64url'));
  await writeNew(file, `${text}\n`);
  return text;
}

function refuseLink(file: string): never {
  throw new TrustError(
    `Refusing to use ${file}: it is a symbolic link. Someone else may have made it. ` +
      `If you did not make it, remove it (\`rm ${file}\`) and start again; wcm never follows a link there.`,
  );
}

/** Creates `file` 0600 with O_EXCL|O_NOFOLLOW: never through a link, never over a file already there. */
export async function writeNew(file: string, text: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  let fh;
  try {
    fh = await open(file, flags, 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST')
      throw new TrustError(`Refusing to write ${file}: a file appeared there meanwhile (remove it and start again).`, {
        cause: err,
      });
    throw err;
  }
  try {
    await fh.writeFile(text);
  } finally {
    await fh.close();
  }
}

/** What initdb and the server get as their environment: nothing of wcm's own (its secrets). */
export function minimalEnv(): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', LC_ALL: 'C' };
}

async function initdb(
  bin: PgBinaries,
  dir: string,
  data: string,
  password: string,
  owner: { uid: number; gid: number } | undefined,
): Promise<void> {
  // initdb reads the password from a file; this one exists only while it runs, for the server's user.
  const pwfile = path.join(dir, `.initdb-${randomBytes(6).toString('hex')}`);
  await writeNew(pwfile, `${password}\n`);
  if (owner) await chown(pwfile, owner.uid, owner.gid);
  try {
    await run(
      bin.initdb,
      [
        `--pgdata=${data}`,
        `--username=${SUPERUSER}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
      ],
      { ...owner, env: minimalEnv() },
    );
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    const denied = /permission denied/i.test(e.stderr ?? '');
    throw new Error(
      `initdb could not create a PostgreSQL cluster in ${data}: ${(e.stderr || e.message).trim()}` +
        (denied && owner
          ? `\nAs root the server runs as \`${SUPERUSER}\`: every directory above ${dir} must be searchable by it (chmod o+x).`
          : ''),
      { cause: err },
    );
  } finally {
    await rm(pwfile, { force: true });
  }
}

/** A cluster starts only with the major version that made it: say so rather than let the server fail obscurely. */
async function sameMajor(data: string, bin: PgBinaries): Promise<void> {
  const made = (await readFile(path.join(data, 'PG_VERSION'), 'utf8').catch(() => '')).trim();
  if (made && made !== String(bin.major))
    throw new Error(
      `The PostgreSQL cluster in ${data} was made by PostgreSQL ${made}; the binaries found are ${bin.version} (${bin.source}: ${path.dirname(bin.postgres)}). ` +
        'Choose the ones that made it with WCM_PG_BINARIES (embedded, debian or a bin directory), or move the directory away to start afresh.',
    );
}

/** A server still running on this cluster (its caller was killed) is stopped, so its lock file goes. */
async function stopLeftover(data: string): Promise<void> {
  let pid: number;
  try {
    pid = Number((await readFile(path.join(data, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return;
  const cmd = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!cmd.includes(data)) return; // the pid was reused by another program: postgres removes a stale lock itself
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 300 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function spawnServer(
  bin: PgBinaries,
  dir: string,
  data: string,
  port: number,
  settings: Record<string, string>,
  owner: { uid: number; gid: number } | undefined,
  owners: number[],
): Promise<ChildProcess> {
  const file = path.join(dir, 'server.log');
  const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
  const log = await open(file, flags, 0o600).catch((err: NodeJS.ErrnoException) =>
    err.code === 'ELOOP' ? refuseLink(file) : Promise.reject(err),
  );
  try {
    refuseUnowned(file, 'file', await log.stat(), owners, owner);
  } catch (err) {
    await log.close();
    throw err;
  }
  const all = { listen_addresses: '127.0.0.1', unix_socket_directories: '', ...settings };
  const args = ['-D', data, '-p', String(port), ...Object.entries(all).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  try {
    const child = spawn(bin.postgres, args, {
      ...owner,
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      env: minimalEnv(),
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return child;
  } finally {
    await log.close();
  }
}

/** Resolves once the server answers a query; rejects when it exits first or the time is up. */
async function ready(url: string, exited: Promise<void>, timeoutMs: number): Promise<void> {
  const postgres = await loadPostgres();
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const sql = postgres(url, { max: 1, connect_timeout: 2, onnotice: () => {} });
    try {
      await sql`select 1`;
      return;
    } catch (err) {
      if (gone) throw new Error('PostgreSQL exited while starting; the end of its log follows.', { cause: err });
      if (Date.now() > deadline)
        throw new Error(`PostgreSQL did not accept connections within ${timeoutMs} ms.`, { cause: err });
    } finally {
      await sql.end({ timeout: 0 });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function logTail(dir: string): Promise<string> {
  const text = await readFile(path.join(dir, 'server.log'), 'utf8').catch(() => '');
  return text.split('\n').slice(-15).join('\n');
}

/** A port free on 127.0.0.1 right now (the kernel's choice); the server binds it moments later. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
