#!/usr/bin/env node
// Same-moment A/B of durable writes (createListing), for work on the write path. Every server is up
// at once and the load alternates between them in short windows (the order flips every round), so
// a host whose speed drifts within seconds disturbs each side alike. `npm run bench` measures its
// write row the same way with two sides; this runs any number of them.
//
//   node test/bench/ab.mjs [--rounds 12] [--seconds 4] [--warmup 2] [--listings 100000] [--dir DATA_DIR] SIDE...
//   node test/bench/ab.mjs --read [--threads 100000] [...] NAME=CHECKOUT...
//
// --read: the bench's read row instead (the filtered page of 50 threads, `view=inbox&channel=whatsapp`,
// over --threads threads), wcm sides on the JSON store only; ratios against the first side.
//
// Each side first gets --warmup seconds of the same load, not counted (wcm has far more code to
// compile than the floor: without it, short runs measure the JIT).
//
// SIDE:
//   NAME=CHECKOUT[,VAR=VALUE...]  `wcm serve` from CHECKOUT (built: `npm run build` there), with
//                                 extra environment, e.g. `pool2=.,UV_THREADPOOL_SIZE=2`
//   floor                         the fsync-per-request floor (floors.mjs write)
//   floor-nosync                  the same floor without its fdatasync: what a sync costs it here
//   pg:NAME=CHECKOUT[,VAR=...]    `wcm serve --store` on PostgreSQL: one durable embedded cluster for
//                                 the run (fsync and synchronous_commit on), the listings seeded once
//                                 and copied per side (`create database … template`)
// Ratios are per round, against `floor` if it is a side, else the first side; the median is printed.
// Besides each server's CPU per request it prints the machine's (all CPUs, every process, the load
// generator and kernel threads included, from /proc/stat), how idle the machine was and how much of
// it the hypervisor took (steal), and per request the writes and cache flushes the disk holding
// --dir completed, with the disk's mean time for each (/sys/dev/block/MAJ:MIN/stat; every process's
// I/O counts, so only an otherwise quiet disk tells them apart). The kernel merges concurrent
// fdatasyncs into one flush, the floor's included.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_DIR, ensureDatasets } from './datasets.mjs';
import { cpuTimeOf, httpRequest, median, runLoad, startServer, stopServer } from './procs.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const opts = { rounds: 12, seconds: 4, warmup: 2, listings: 100_000, threads: 100_000, dir: DEFAULT_DIR, read: false };
const sides = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === '--read') opts.read = true;
  else if (a.startsWith('--')) {
    const k = a.slice(2);
    if (!(k in opts) || i + 1 >= argv.length) usage(`unknown or incomplete option ${a}`);
    opts[k] = k === 'dir' ? path.resolve(argv[++i]) : Number(argv[++i]);
    if (k === 'warmup' ? !(opts[k] >= 0) : k !== 'dir' && !(opts[k] > 0))
      usage(`--${k} must be ${k === 'warmup' ? 'a number of seconds, 0 or more' : 'a positive number'}`);
  } else if (a === 'floor' || a === 'floor-nosync')
    sides.push({ name: a, floor: a === 'floor' ? 'write' : 'write-nosync' });
  else {
    const pg = a.startsWith('pg:');
    const spec = pg ? a.slice(3) : a;
    const eq = spec.indexOf('=');
    if (eq < 1) usage(`\`${a}\` is not a side`);
    const [dir, ...vars] = spec.slice(eq + 1).split(',');
    const env = {};
    for (const v of vars) {
      const e = v.indexOf('=');
      if (e < 1) usage(`\`${v}\` in \`${a}\` is not VAR=VALUE`);
      env[v.slice(0, e)] = v.slice(e + 1);
    }
    sides.push({ name: spec.slice(0, eq), checkout: path.resolve(dir), env, pg });
  }
}
if (sides.length < 2) usage('give at least two sides');
if (opts.read && sides.some((s) => !s.checkout || s.pg))
  usage('--read compares wcm checkouts on the JSON store: NAME=CHECKOUT sides only');
for (const s of sides) {
  if (s.checkout && !existsSync(path.join(s.checkout, 'dist/src/cli/main.js')))
    usage(`${s.name}: ${s.checkout} is not a built wcm checkout (run \`npm run build\` there)`);
}

function usage(msg) {
  console.error(
    `ab.mjs: ${msg}\nusage: node test/bench/ab.mjs [--read] [--rounds N] [--seconds S] [--warmup S] [--listings N] [--threads N] [--dir DIR] [pg:]NAME=CHECKOUT[,VAR=VALUE...] | floor | floor-nosync ...`,
  );
  process.exit(2);
}

// Writes use only the listings: the smallest thread set keeps a first run short.
const data = ensureDatasets({
  dir: opts.dir,
  listings: opts.listings,
  threads: opts.read ? opts.threads : 1_000,
  log: (l) => console.error(l),
});
const q = data.threads.query;
/** What a side's load sends: the durable write, or with --read the filtered page. */
const request = opts.read
  ? { method: 'GET', headers: { authorization: `Bearer ${data.token}` } }
  : {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${data.token}` },
      body: JSON.stringify({
        title: 'Bench listing',
        template_slug: 'faq',
        items: [{ title: 'Hours?', description: 'Nine to five, Monday to Friday.' }],
      }),
    };
mkdirSync(opts.dir, { recursive: true });
const work = mkdtempSync(path.join(opts.dir, 'ab-'));
const env = { WCM_CONFIG_DIR: path.join(work, 'config'), NO_COLOR: '1' };
mkdirSync(env.WCM_CONFIG_DIR);

/** `file`: the data file, or `{ store: URL }` (passed as WCM_STORE: it holds the password, not in argv). */
const startWcm = (checkout, file, extra = [], sideEnv = {}) =>
  startServer(
    process.execPath,
    [path.join(checkout, 'bin/wcm.js'), 'serve', '--port', '0', ...(file.store ? [] : ['--data', file]), ...extra],
    {
      env: { ...env, ...(file.store ? { WCM_STORE: file.store } : {}), ...sideEnv },
      ready: /wcm listening on (\S+)/,
      timeoutMs: 300_000,
      name: 'wcm serve',
    },
  );

/** The run's PostgreSQL cluster and a database of the listings to copy, made on first use. */
let cluster = null;
async function pgDatabase(checkout, name) {
  if (!cluster) {
    const { startEmbedded } = await import(path.join(ROOT, 'dist/src/embedded-postgres/embedded.js'));
    const { default: postgres } = await import('postgres');
    chmodSync(work, 0o755);
    const c = await startEmbedded({ dir: path.join(work, 'pg'), timeoutMs: 120_000 });
    cluster = { ...c, sql: postgres(c.url, { max: 1, onnotice: () => {} }), url: (db) => dbUrl(c.url, db) };
    await cluster.sql.unsafe('create database wcm_template');
    await stopServer(
      await startWcm(checkout, { store: cluster.url('wcm_template') }, ['--seed', data.listings.fixture]),
    );
  }
  await cluster.sql.unsafe(`create database ${name} template wcm_template`);
  return cluster.url(name);
}
const dbUrl = (url, db) => Object.assign(new URL(url), { pathname: `/${db}` }).toString();

/** Busy, stolen and total time of all CPUs so far (jiffies); idle and iowait count as not busy. */
function machine() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  const all = f.reduce((a, b) => a + b, 0);
  return { busy: all - f[3] - f[4], steal: f[7] ?? 0, all };
}

/** The block device holding `dir`: its stat file, if the kernel has one (not on tmpfs or overlays). */
function diskStatFile(dir) {
  const dev = statSync(dir).dev;
  const major = Math.floor(dev / 256) & 0xfff;
  const file = `/sys/dev/block/${major}:${dev & 0xff}/stat`;
  return major && existsSync(file) ? file : null;
}

/** Writes and cache flushes the disk completed so far (Documentation/block/stat.rst; flushes since Linux 5.5). */
function disk(file) {
  if (!file) return null;
  const f = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
  return { writes: f[4], writeMs: f[7], flushes: f.length > 15 ? f[15] : NaN, flushMs: f.length > 16 ? f[16] : NaN };
}

const diskFile = diskStatFile(work);
let template = null;
try {
  for (const s of sides) {
    const d = mkdtempSync(path.join(work, `${s.name.replace(/[^\w-]/g, '_')}-`));
    if (s.floor) {
      s.server = await startServer(
        process.execPath,
        [path.join(ROOT, 'test/bench/floors.mjs'), s.floor, path.join(d, 'log')],
        { ready: /listening (\d+)/, name: s.name },
      );
      s.url = `http://127.0.0.1:${s.server.match[1]}/listings`;
    } else if (s.pg) {
      const store = await pgDatabase(s.checkout, `wcm_${sides.indexOf(s)}`);
      s.server = await startWcm(s.checkout, { store }, [], s.env);
      s.url = `${s.server.match[1]}/workspaces/${data.workspaceId}/lists`;
    } else {
      // Every wcm side starts from a copy of one data file holding the listings (or the threads).
      if (!template) {
        template = path.join(work, 'template', 'store.json');
        const fixture = opts.read ? data.threads.fixture : data.listings.fixture;
        await stopServer(await startWcm(s.checkout, template, ['--seed', fixture]));
      }
      copyFileSync(template, path.join(d, 'store.json'));
      s.server = await startWcm(s.checkout, path.join(d, 'store.json'), [], s.env);
      s.url = opts.read
        ? `${s.server.match[1]}/workspaces/${q.workspaceId}/threads?view=${q.view}&channel=${q.channel}&limit=${q.limit}`
        : `${s.server.match[1]}/workspaces/${data.workspaceId}/lists`;
    }
    const probe = await httpRequest(s.url, request);
    if (probe.status !== (opts.read ? 200 : 201))
      throw new Error(`${s.name}: the probe answered ${probe.status} ${probe.body}`);
    if (
      opts.read &&
      JSON.stringify(JSON.parse(probe.body).data.map((t) => t.id)) !== JSON.stringify(data.threads.expectedIds)
    )
      throw new Error(`${s.name}: the page is not the expected page`);
    Object.assign(s, {
      rps: [],
      cpu: [],
      machineCpu: [],
      idle: [],
      steal: [],
      writes: [],
      flushes: [],
      writeUs: [],
      flushUs: [],
      p99: [],
    });
  }
  if (opts.warmup)
    for (const s of sides) await runLoad({ url: s.url, ...request, connections: 10, duration: opts.warmup });
  // The data files just written: flushed now, so their writeback does not meet the first rounds' syncs.
  execFileSync('sync');
  await new Promise((r) => setTimeout(r, 1000));

  for (let r = 0; r < opts.rounds; r++) {
    for (const s of r % 2 ? [...sides].reverse() : sides) {
      const c0 = cpuTimeOf(s.server.child.pid);
      const m0 = machine();
      const d0 = disk(diskFile);
      const l = await runLoad({ url: s.url, ...request, connections: 10, duration: opts.seconds });
      const m1 = machine();
      const d1 = disk(diskFile);
      const n = Math.max(1, l.ok + l.non2xx);
      if (l.non2xx || l.errors) throw new Error(`${s.name}: ${l.non2xx} answers not 2xx, ${l.errors} errors`);
      s.rps.push(l.rps);
      s.cpu.push(((cpuTimeOf(s.server.child.pid) - c0) / n) * 1000);
      // jiffies are 10 ms: µs per request.
      s.machineCpu.push(((m1.busy - m0.busy) * 10_000) / n);
      s.idle.push((100 * (m1.all - m1.busy - (m0.all - m0.busy))) / (m1.all - m0.all));
      s.steal.push((100 * (m1.steal - m0.steal)) / (m1.all - m0.all));
      if (d0) {
        s.writes.push((d1.writes - d0.writes) / n);
        s.flushes.push((d1.flushes - d0.flushes) / n);
        s.writeUs.push((1000 * (d1.writeMs - d0.writeMs)) / Math.max(1, d1.writes - d0.writes));
        s.flushUs.push((1000 * (d1.flushMs - d0.flushMs)) / Math.max(1, d1.flushes - d0.flushes));
      }
      s.p99.push(l.latency.p99);
    }
    console.log(`round ${r + 1}: ${sides.map((s) => `${s.name} ${s.rps.at(-1).toFixed(0)} req/s`).join(', ')}`);
  }
  const ref = sides.find((s) => s.name === 'floor') ?? sides[0];
  if (!diskFile) console.log(`(no block device statistics for ${work}: disk figures left out)`);
  console.log(
    `\n${opts.rounds} rounds of ${opts.seconds} s, 10 connections; ratios against ${ref.name}, median of the per-round ratios`,
  );
  for (const s of sides) {
    const ratio = median(s.rps.map((x, i) => x / ref.rps[i]));
    const cpuRatio = median(s.cpu.map((x, i) => x / ref.cpu[i]));
    console.log(
      `${s.name.padEnd(14)} ${median(s.rps).toFixed(0).padStart(6)} req/s (${(100 * ratio).toFixed(1)}%), p99 ${median(s.p99)} ms, ` +
        `server CPU ${median(s.cpu).toFixed(1)} µs/req (${cpuRatio.toFixed(3)}×), machine CPU ${median(s.machineCpu).toFixed(0)} µs/req, idle ${median(s.idle).toFixed(0)}%, steal ${median(s.steal).toFixed(0)}%` +
        (s.writes.length
          ? `, disk ${median(s.writes).toFixed(2)} writes (${median(s.writeUs).toFixed(0)} µs) and ${median(s.flushes).toFixed(2)} flushes (${median(s.flushUs).toFixed(0)} µs)/req`
          : ''),
    );
  }
} finally {
  for (const s of sides) if (s.server) await stopServer(s.server).catch(() => undefined);
  if (cluster) {
    await cluster.sql.end({ timeout: 5 }).catch(() => undefined);
    await cluster.stop();
  }
  rmSync(work, { recursive: true, force: true });
}
