#!/usr/bin/env node
// Issue 36: how long a write on another process waits while `wcm local import --store` loads N
// threads into PostgreSQL, and the import's wall time. One embedded cluster (durable) in a temp
// directory; demo.json imported first; then the threads' import runs as a child process while this
// process writes a workspace through its own store every 50 ms and times each write.
//
// --replace: demo.json and the threads are imported first, then again with `--replace` (as a reset
// to the seed does).
// --reset: demo.json and the threads are loaded into the PostgreSQL engine's tables and saved as a
// named snapshot, then a second engine (its own connections, in this process) resets to it as POST
// /_emulator/reset {"to": name} does, while the first writes.
// --bookings: the file holds N bookings (demo.json's first, new ids and times) instead of threads.
// The import's child runs under /usr/bin/time: its peak RSS is printed.
//
//   node test/bench/import-lock.mjs [--threads 100000] [--replace | --reset] [--bookings] [--root DIR]   (DIR: a built checkout, default this one)
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './datasets.mjs';
import { DEMO_WS1, generateThreads } from '../support/generate-threads.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : process.argv[i + 1];
};
const n = Number(arg('threads', 100_000));
const root = path.resolve(arg('root', ROOT));
const replace = process.argv.includes('--replace');
const reset = process.argv.includes('--reset');
const bookings = process.argv.includes('--bookings');
const work = mkdtempSync(path.join(tmpdir(), 'wcm-import-lock-'));
// Searchable by `postgres` when run as root (the cluster runs as that user, as in pg.mjs).
chmodSync(work, 0o755);

/** Runs `wcm ARGS` (under /usr/bin/time with `measured`: resolves the child's peak RSS in MB). */
function wcm(...args) {
  const measured = args[0] === 'measured';
  if (measured) args.shift();
  const cmd = [process.execPath, path.join(root, 'bin/wcm.js'), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(
      measured ? '/usr/bin/time' : cmd[0],
      measured ? ['-f', 'peak-rss-kb %M', ...cmd] : cmd.slice(1),
      {
        stdio: ['ignore', 'ignore', process.env.SHOW ? 'inherit' : 'pipe'],
      },
    );
    let err = '';
    child.stderr?.on('data', (d) => (err += d));
    child.on('exit', (code) =>
      code === 0
        ? resolve(Number(/peak-rss-kb (\d+)/.exec(err)?.[1] ?? 0) / 1024)
        : reject(new Error(`wcm ${args[0]} ${args[1]}: ${code}\n${err}`)),
    );
  });
}

const { startEmbedded } = await import(path.join(root, 'dist/src/embedded-postgres/embedded.js'));
const { resetState, saveSnapshot } = await import(path.join(root, 'dist/src/server/emulator/state.js'));
const { PostgresEngine } = await import(path.join(root, 'dist/src/store/postgres/engine.js'));
const { seedEngine } = await import(path.join(root, 'dist/src/store/fixtures/seed.js'));
const cluster = await startEmbedded({ dir: path.join(work, 'pg'), timeoutMs: 120_000 });
try {
  const fixture = path.join(work, 'threads.json');
  const demo = path.join(root, 'fixtures/demo.json');
  writeFileSync(
    fixture,
    JSON.stringify(bookings ? manyBookings(demo) : generateThreads({ count: n, workspaceId: DEMO_WS1 })),
  );
  // With --replace or --reset, the threads are there already: 100,000 are swapped for 100,000.
  if (!reset) await wcm('local', 'import', demo, ...(replace ? [fixture] : []), '--store', cluster.url);
  // The writer is another PostgreSQL engine (its own connections): the import writes the engine's tables.
  const store = await PostgresEngine.open(cluster.url);
  const resetter = reset ? await PostgresEngine.open(cluster.url) : null;
  // A named snapshot on PostgreSQL is copies of the tables in the database.
  if (resetter) {
    await seedEngine(resetter, [demo, fixture]);
    await saveSnapshot(resetter, 'bench');
  }
  const waits = [];
  const failed = [];
  let done = false;
  const t0 = performance.now();
  const args = replace ? [demo, fixture, '--store', cluster.url, '--replace'] : [fixture, '--store', cluster.url];
  const importing = (resetter ? resetState(resetter, 'bench') : wcm('measured', 'local', 'import', ...args)).finally(
    () => (done = true),
  );
  for (let i = 0; !done; i++) {
    const t = performance.now();
    // A write that fails (its lock wait past lock_timeout) is counted, its wait kept.
    await store
      .write(async (tx) => tx.put('workspaces', { ...(await tx.get('workspaces', DEMO_WS1)), name: `Acme ${i}` }))
      .catch((err) => failed.push(err.code ?? err.message));
    waits.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 50));
  }
  // The import's peak RSS in MB (a reset runs in this process: its counts, not measured).
  const ended = await importing;
  const rss = typeof ended === 'number' ? ended : 0;
  const wall = (performance.now() - t0) / 1000;
  await store.close();
  await resetter?.close();
  waits.sort((a, b) => a - b);
  const ms = (v) => `${Math.round(v)} ms`;
  console.log(
    `${n} ${bookings ? 'bookings' : 'threads'}${replace ? ' (--replace)' : ''}: ${reset ? 'reset to a named snapshot' : 'import'} ${wall.toFixed(1)} s; ` +
      `${waits.length} writes from another ${reset ? 'store' : 'process'} meanwhile, ` +
      `median ${ms(waits[waits.length >> 1])}, p99 ${ms(waits[Math.min(waits.length - 1, Math.floor(waits.length * 0.99))])}, max ${ms(waits.at(-1))}` +
      (failed.length ? `; ${failed.length} failed (${[...new Set(failed)].join(', ')})` : '') +
      (rss ? `; the import's peak RSS ${Math.round(rss)} MB` : ''),
  );
} finally {
  await cluster.stop();
  rmSync(work, { recursive: true, force: true });
}

/** A fixture of `n` bookings: demo.json's first, each with its own id and an hour of its own. */
function manyBookings(demo) {
  const first = JSON.parse(readFileSync(demo, 'utf8')).bookings[0];
  const at = (i, h) => new Date(Date.UTC(2026, 0, 1) + i * 60_000 + h * 3_600_000).toISOString().replace('.000', '');
  const id = (i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
  const all = Array.from({ length: n }, (_, i) => ({
    ...first,
    id: id(i),
    workspace_id: DEMO_WS1,
    starts_at: at(i, 0),
    ends_at: at(i, 1),
  }));
  return { version: 1, bookings: all };
}
