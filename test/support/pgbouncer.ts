import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { clusterUrl } from './postgres.js';

/** A PgBouncer in transaction pooling mode in front of the run's PostgreSQL. */
export interface Bouncer {
  /** The URL of `database` through the bouncer (no password: it authenticates to the server itself). */
  url(database: string): string;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = createConnection({ port, host: '127.0.0.1' });
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });

/**
 * Starts Debian's `pgbouncer` (a missing binary fails the test, never skips it), `pool_mode =
 * transaction`, every database of the test cluster reachable by its name. As root it runs as
 * `nobody` (it refuses root), from a directory that user can read.
 */
export async function startBouncer(poolSize = 4): Promise<Bouncer> {
  const server = new URL(clusterUrl());
  const port = await freePort();
  // Not under the run's scratch directory: its mode keeps `nobody` out.
  const dir = mkdtempSync(path.join(tmpdir().startsWith('/tmp') ? '/tmp' : tmpdir(), 'wcm-pgbouncer-'));
  chmodSync(dir, 0o755);
  const ini = path.join(dir, 'pgbouncer.ini');
  const conn = [
    `host=${server.hostname}`,
    `port=${server.port || 5432}`,
    `user=${decodeURIComponent(server.username)}`,
    ...(server.password ? [`password=${decodeURIComponent(server.password)}`] : []),
  ].join(' ');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = ${conn}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = any',
      'pool_mode = transaction',
      `default_pool_size = ${poolSize}`,
      'max_client_conn = 200',
      'server_reset_query =',
      'ignore_startup_parameters = extra_float_digits',
      '',
    ].join('\n'),
  );
  chmodSync(ini, 0o644);
  const args = process.getuid?.() === 0 ? ['-u', 'nobody', ini] : [ini];
  const child: ChildProcess = spawn(existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer', args, {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (b) => (stderr += b));
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = `pgbouncer exited (${code ?? signal}): ${stderr}`));
  child.once('error', (err) => (exited = `pgbouncer did not start: ${err.message}`));
  for (let i = 0; ; i++) {
    if (exited) throw new Error(exited);
    if (await accepts(port)) break;
    if (i > 100) throw new Error(`pgbouncer did not listen on ${port}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: (database) => `postgres://${server.username}@127.0.0.1:${port}/${database}`,
    stop: async () => {
      if (!exited) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
