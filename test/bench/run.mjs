#!/usr/bin/env node
// `npm run bench`: the embedded server and the CLI measured side by side with json-server 0.17
// (what a user would pick instead) and with the floor (bare node:http), in the same run, on the
// same generated data. Prints a markdown table and writes it to test/bench/last-results.md.
//
//   node test/bench/run.mjs [--quick] [--only startup,read,paging,dashboard,mcp,tools-list,reset,import,write,cli,pull,cli-memory,pg-write,pg-read,pg-1m,pg-two,pg-two-delay,pg-rss] [--duration S] [--runs N] [--import-threads N]
//                           [--out FILE] [--dir DATA_DIR]
// --quick: 10,000 records, 3 s load runs, 3 repeats (for developing the harness; figures are not
// comparable with the full run).
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_DIR, ROOT, ensureDatasets } from './datasets.mjs';
import { generateThreads } from '../support/generate-threads.mjs';
import { benchCliMemory } from './cli-memory.mjs';
import { pgSections } from './pg.mjs';
import {
  cpuTimeOf,
  dashboardSignIn,
  freePort,
  httpRequest,
  median,
  memoryOf,
  peakRssMethod,
  runLoad,
  runOnce,
  startServer,
  stopServer,
  wallTime,
} from './procs.mjs';

// ---- options
const argv = process.argv.slice(2);
const flag = (name) => argv.includes(`--${name}`);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i === -1 ? dflt : argv[i + 1];
};
const quick = flag('quick');
const cfg = {
  quick,
  threads: Number(opt('threads', quick ? 10_000 : 100_000)),
  listings: Number(opt('listings', quick ? 10_000 : 100_000)),
  duration: Number(opt('duration', quick ? 3 : 10)),
  runs: Number(opt('runs', quick ? 3 : 10)),
  // Start-up and paging runs take seconds each: fewer repeats.
  slowRuns: Number(opt('slow-runs', quick ? 3 : 5)),
  connections: 10,
  dir: path.resolve(opt('dir', DEFAULT_DIR)),
  out: path.resolve(opt('out', path.join(ROOT, 'test/bench/last-results.md'))),
  only: new Set(
    opt(
      'only',
      'startup,read,paging,dashboard,mcp,tools-list,reset,import,write,cli,pull,cli-memory,pg-write,pg-read,pg-1m,pg-two,pg-two-delay,pg-rss',
    ).split(','),
  ),
  // `wcm local import` of a fixture this big (docs/server.md, bulk loads: 1,000,000 threads).
  importThreads: Number(opt('import-threads', quick ? 20_000 : 1_000_000)),
};

const NODE = process.execPath;
const WCM = path.join(ROOT, 'bin/wcm.js');
const JSON_SERVER = path.join(ROOT, 'node_modules/json-server/lib/cli/bin.js');
const log = (s) => process.stderr.write(`[bench] ${s}\n`);
// A fresh clone has no data directory yet: the data sets are generated later, the run's own
// directory is made now.
mkdirSync(cfg.dir, { recursive: true });
const work = mkdtempSync(path.join(cfg.dir, 'run-'));
// wcm serve saves profile `local`: keep that out of the user's real config.
const BENCH_ADMIN = `wcm_admin_${'b'.repeat(32)}`;
const cliEnv = { WCM_CONFIG_DIR: path.join(work, 'config'), NO_COLOR: '1', WCM_ADMIN_TOKEN: BENCH_ADMIN };
mkdirSync(cliEnv.WCM_CONFIG_DIR, { recursive: true });

const fmt = {
  rps: (r) => (r == null ? 'n/a' : r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)),
  ms: (m) => (m == null || Number.isNaN(m) ? 'n/a' : m >= 100 ? m.toFixed(0) : m.toFixed(1)),
  x: (r) => (r == null || !Number.isFinite(r) ? 'n/a' : r >= 10 ? `${r.toFixed(0)}×` : `${r.toFixed(2)}×`),
  pct: (r) => (r == null || !Number.isFinite(r) ? 'n/a' : `${(r * 100).toFixed(0)}%`),
  mb: (m) => (m == null || Number.isNaN(m) ? 'n/a' : `${m.toFixed(0)} MB`),
  n: (n) => n.toLocaleString('en-US'),
};

/** Rows of the final table: figure | wcm | reference(s) | ratio | target | met? */
const rows = [];
const notes = [];
const row = (figure, wcm, refs, ratio, target, met) =>
  rows.push({ figure, wcm, refs, ratio, target, met: met === null ? 'n/a' : met ? 'yes' : '**no**' });

// ---- servers under test
/** `store`: a PostgreSQL URL instead of the data file, passed as WCM_STORE (it holds the password: not in argv). */
async function startWcm(dataFile, { seed, store } = {}) {
  const args = [
    WCM,
    'serve',
    '--port',
    '0',
    ...(store ? [] : ['--data', dataFile]),
    ...[seed ?? []].flat().flatMap((f) => ['--seed', f]),
  ];
  const s = await startServer(NODE, args, {
    env: store ? { ...cliEnv, WCM_STORE: store } : cliEnv,
    ready: /wcm listening on (\S+)/,
    timeoutMs: 300_000,
    name: 'wcm serve',
  });
  s.url = s.match[1];
  return s;
}

/** Seeds a fresh data file from a fixture and stops the server (which folds it into the snapshot). */
async function prepareStore(fixture, name) {
  const dataFile = path.join(work, name, 'store.json');
  const s = await startWcm(dataFile, { seed: fixture });
  await stopWcm(s);
  return dataFile;
}

/** SIGTERM: wcm must finish in-flight requests, flush, and exit 0. */
async function stopWcm(s) {
  const r = await stopServer(s);
  if (r.code !== 0) throw new Error(`wcm serve exited ${r.code} on SIGTERM: ${s.stderr().slice(-1000)}`);
  return r;
}

async function startJsonServer(db, probePath) {
  const port = await freePort();
  const s = await startServer(NODE, [JSON_SERVER, db, '--port', String(port), '--host', '127.0.0.1', '--quiet'], {
    probe: async () => (await httpRequest(`http://127.0.0.1:${port}${probePath}`)).status === 200,
    timeoutMs: 300_000,
    name: 'json-server',
  });
  s.url = `http://127.0.0.1:${port}`;
  return s;
}

async function startFloor(mode, file, env) {
  const s = await startServer(NODE, [path.join(ROOT, 'test/bench/floors.mjs'), mode, file], {
    env,
    ready: /listening (\d+)/,
    name: `${mode} floor`,
  });
  s.url = `http://127.0.0.1:${s.match[1]}`;
  return s;
}

/**
 * A load run against `server`; also the server's CPU time per answered request, which a busy
 * machine disturbs far less than requests/s (it is printed next to them).
 */
async function load(server, spec) {
  const cpu0 = cpuTimeOf(server.child.pid);
  const r = await runLoad({ connections: cfg.connections, duration: cfg.duration, ...spec });
  r.cpuPerRequestMs = (cpuTimeOf(server.child.pid) - cpu0) / Math.max(1, r.ok + r.non2xx);
  return r;
}
/**
 * Two servers (or two requests) under the same load in alternating windows (which goes first flips
 * every round). Returns each side's requests/s over all its windows, the median of its windows' p99,
 * its CPU per request and its answer's size, and a's requests/s over b's per round.
 */
async function alternate(a, b, { rounds = cfg.quick ? 3 : 6, seconds = Math.max(2, cfg.duration / 2) } = {}) {
  const sides = [a, b].map((x) => ({ ...x, windows: [] }));
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 ? [...sides].reverse() : sides)
      side.windows.push(await load(side.server, { ...side.spec, duration: seconds }));
    ratios.push(sides[0].windows[r].rps / sides[1].windows[r].rps);
  }
  const [ra, rb] = sides.map(({ windows: w }) => {
    const sum = (f) => w.reduce((t, x) => t + f(x), 0);
    const statusCodes = {};
    for (const x of w)
      for (const [k, v] of Object.entries(x.statusCodes ?? {})) statusCodes[k] = (statusCodes[k] ?? 0) + (v.count ?? v);
    return {
      ok: sum((x) => x.ok),
      non2xx: sum((x) => x.non2xx),
      errors: sum((x) => x.errors),
      statusCodes,
      durationS: sum((x) => x.durationS),
      rps: sum((x) => x.ok) / sum((x) => x.durationS),
      latency: { p50: median(w.map((x) => x.latency.p50)), p99: median(w.map((x) => x.latency.p99)) },
      cpuPerRequestMs:
        sum((x) => x.cpuPerRequestMs * (x.ok + x.non2xx)) /
        Math.max(
          1,
          sum((x) => x.ok + x.non2xx),
        ),
      bytesPerResponse: w[0]?.bytesPerResponse ?? 0,
    };
  });
  return { a: ra, b: rb, ratios };
}

/** A wall time with its CPU time: on a busy machine the CPU ratio is the steadier of the two. */
const wallText = (w) => `${fmt.ms(w.medianMs)} ms${Number.isNaN(w.cpuMs) ? '' : ` (${fmt.ms(w.cpuMs)} ms CPU)`}`;
const cpuRatio = (a, b) => (Number.isNaN(a.cpuMs) || !b.cpuMs ? '' : `<br>CPU: ${fmt.x(a.cpuMs / b.cpuMs)}`);
const cpuText = (ms) =>
  ms >= 10 ? `${ms.toFixed(0)} ms` : ms >= 1 ? `${ms.toFixed(1)} ms` : `${(ms * 1000).toFixed(0)} µs`;
const loadText = (r) =>
  `${fmt.rps(r.rps)} req/s, p99 ${fmt.ms(r.latency.p99)} ms, ${cpuText(r.cpuPerRequestMs)} CPU/req`;
function checkLoad(what, r) {
  const bad = r.non2xx + r.errors;
  if (bad)
    notes.push(
      `${what}: ${bad} of ${r.ok + bad} answers were not 2xx (${JSON.stringify(r.statusCodes)}); only 2xx are counted.`,
    );
  if (!r.ok) throw new Error(`${what}: no request succeeded in ${r.durationS} s (${JSON.stringify(r.statusCodes)}).`);
}

let data;
let threadsStore = null;
const auth = () => ({ authorization: `Bearer ${data.token}` });
/** fixtures/demo.json's all-abilities personal token. */
const DEMO_OWNER = 'wcm_pat_demoOwnerAllAbilities0123456789abcdefghi';
const NOT_IMPLEMENTED = 'n/a (listThreads not implemented)';

/** The threads request of the read benchmark: one filtered page of 50, newest first. */
function threadsPath(q = data.threads.query) {
  return `/workspaces/${q.workspaceId}/threads?view=${q.view}&channel=${q.channel}&limit=${q.limit}`;
}

async function listThreadsStatus(url) {
  const r = await httpRequest(url + threadsPath(), { headers: auth() });
  return r;
}

// ---- figures
/**
 * Issue 36 set `serve --seed` of 100,000 threads at < 2 s on the host of 2026-11-25, where this row's
 * floor (node reading, parsing and durably writing the fixture) took 0.72 s: 2 s was 2.78× the
 * floor there. On a slower host (the floor over 0.72 s) the row is read against that ratio, as every
 * other row is read against a reference of its own run; test/bench/README.md has the A/B behind it.
 */
const SEED_TARGET_RATIO = 2 / 0.72;

async function benchStartup() {
  const fixture = data.threads.fixture;
  const size = fmt.n(data.threads.count);
  // 1. From a fixture: an empty data file seeded with --seed (validates and imports every record).
  // The first answer comes once the seed is in memory; its snapshot is written after, and writes
  // wait for it: the first write acknowledged is when the seed is durable.
  const seeded = [];
  const durable = [];
  let seededRss = NaN;
  const listing = JSON.stringify({ title: 'After the seed', template_slug: 'faq' });
  for (let i = 0; i < cfg.slowRuns; i++) {
    const dataFile = path.join(work, `threads-seed-${i}`, 'store.json');
    const s = await startWcm(dataFile, { seed: fixture });
    const r = await listThreadsStatus(s.url);
    seeded.push(performance.now() - s.t0);
    const headers = { 'content-type': 'application/json', ...auth() };
    const lists = `${s.url}/workspaces/${data.threads.query.workspaceId}/lists`;
    const w = await httpRequest(lists, { method: 'POST', headers, body: listing });
    durable.push(performance.now() - s.t0);
    seededRss = memoryOf(s.child.pid).rssMB;
    await stopWcm(s);
    if (i < cfg.slowRuns - 1) rmSync(path.dirname(dataFile), { recursive: true, force: true });
    else threadsStore = dataFile;
    if (r.status !== 200 && r.status !== 501) throw new Error(`the first request answered ${r.status}: ${r.body}`);
    if (w.status !== 201) throw new Error(`the first write answered ${w.status}: ${w.body}`);
    log(
      `seeded start ${i + 1}/${cfg.slowRuns}: ${fmt.ms(seeded[i])} ms to the first answer, ${fmt.ms(durable[i])} ms to the first write`,
    );
  }
  // 2. Restart: the data file already holds the records (how a server normally starts).
  const restarted = [];
  let restartRss = NaN;
  for (let i = 0; i < cfg.slowRuns; i++) {
    const s = await startWcm(threadsStore);
    await listThreadsStatus(s.url);
    restarted.push(performance.now() - s.t0);
    restartRss = memoryOf(s.child.pid).rssMB;
    await stopWcm(s);
    log(`restart ${i + 1}/${cfg.slowRuns}: ${fmt.ms(restarted[i])} ms`);
  }
  // What any Node process pays for the same data: read and parse it (and, for an import, write it
  // back durably). Not a target, the limit that explains one.
  const importFloor = await wallTime(
    NODE,
    [
      '-e',
      `const fs=require('fs');const t=fs.readFileSync(process.argv[1],'utf8');JSON.parse(t);fs.writeFileSync(process.argv[2],t);const fd=fs.openSync(process.argv[2],'r+');fs.fdatasyncSync(fd)`,
      fixture,
      path.join(work, 'import-floor.json'),
    ],
    { runs: cfg.slowRuns },
  );
  // The data file is parsed lazily (one record per line, threads read on demand), so the floor for
  // a restart is what parsing the same records eagerly costs: the fixture, one JSON document.
  const parseFloor = await wallTime(
    NODE,
    ['-e', `JSON.parse(require('fs').readFileSync(process.argv[1],'utf8'))`, fixture],
    { runs: cfg.slowRuns },
  );
  rmSync(path.join(work, 'import-floor.json'), { force: true });
  const a = median(seeded) / 1000;
  const aw = median(durable) / 1000;
  const b = median(restarted) / 1000;
  row(
    `\`wcm serve --seed\` (empty store, ${size}-thread fixture): start to first answered request (to the first write acknowledged, the seed durable); RSS`,
    `${a.toFixed(2)} s (${aw.toFixed(2)} s); ${fmt.mb(seededRss)}`,
    `node reading, parsing and durably writing the fixture: ${(importFloor.medianMs / 1000).toFixed(2)} s`,
    `${fmt.x((a * 1000) / importFloor.medianMs)} (${fmt.x((aw * 1000) / importFloor.medianMs)})`,
    `< 2 s to the first answer, or on a slower host ≤ ${fmt.x(SEED_TARGET_RATIO)} the floor; RSS printed`,
    a < 2 || (a * 1000) / importFloor.medianMs <= SEED_TARGET_RATIO,
  );
  row(
    `\`wcm serve\` (data file holding ${size} threads): start to first answered request; RSS`,
    `${b.toFixed(2)} s; ${fmt.mb(restartRss)}`,
    `node reading and parsing the same records as one JSON document (the fixture): ${(parseFloor.medianMs / 1000).toFixed(2)} s`,
    fmt.x((b * 1000) / parseFloor.medianMs),
    '< 2 s; RSS printed',
    b < 2,
  );
}

async function benchRead() {
  const q = data.threads.query;
  const dataFile = threadsStore ?? (threadsStore = await prepareStore(data.threads.fixture, 'threads'));
  const figure = `list threads, one filtered page of 50 (\`view=${q.view}&channel=${q.channel}\`), ${fmt.n(data.threads.count)} threads: req/s, p99`;
  // wcm
  const wcm = await startWcm(dataFile);
  let wcmRes = null;
  let body;
  try {
    const probe = await listThreadsStatus(wcm.url);
    if (probe.status === 501) {
      log('listThreads answers 501: not implemented on this branch');
    } else {
      if (probe.status !== 200) throw new Error(`listThreads answered ${probe.status}: ${probe.body}`);
      const ids = JSON.parse(probe.body).data.map((t) => t.id);
      if (JSON.stringify(ids) !== JSON.stringify(data.threads.expectedIds))
        throw new Error(
          `wcm's page is not the expected page (first ids ${ids.slice(0, 3)} vs ${data.threads.expectedIds.slice(0, 3)})`,
        );
      body = probe.body;
      wcmRes = await load(wcm, { url: wcm.url + threadsPath(), headers: auth() });
      checkLoad('wcm listThreads', wcmRes);
      notes.push(
        `wcm serve RSS after the read load: ${fmt.mb(memoryOf(wcm.child.pid).rssMB)} (peak ${fmt.mb(memoryOf(wcm.child.pid).hwmMB)}).`,
      );
      log(`wcm read: ${loadText(wcmRes)}`);
    }
  } finally {
    await stopWcm(wcm);
  }
  // json-server on the same records, with its own query parameters for the same page.
  const js = await startJsonServer(data.threads.db, '/threads?_limit=1');
  let jsRes;
  try {
    const jsPath = `/threads?workspace_id=${q.workspaceId}&status=open&channels_like=${q.channel}&_sort=last_message_at&_order=desc&_limit=${q.limit}`;
    const probe = await httpRequest(js.url + jsPath);
    const ids = JSON.parse(probe.body).map((t) => t.id);
    if (JSON.stringify(ids) !== JSON.stringify(data.threads.expectedIds))
      throw new Error("json-server's page is not the expected page");
    jsRes = await load(js, { url: js.url + jsPath });
    checkLoad('json-server threads', jsRes);
    log(`json-server read: ${loadText(jsRes)}`);
  } finally {
    await stopServer(js);
  }
  // The floor: the same bytes, precomputed. Until listThreads exists, the envelope of the expected page.
  body ??= JSON.stringify({
    data: data.threads.expectedPage,
    meta: {
      request_id: 'req_0000000000000000000000000',
      next_cursor: 'W1siMjAyNC0wMS0wMVQwMDowMDowMC4wMDBaIiwiMDAwMDAwMDAiXSwiMDAwMDAwMDAwMCJd',
    },
  });
  const bodyFile = path.join(work, 'read-floor-body.json');
  writeFileSync(bodyFile, body);
  const floor = await startFloor('read', bodyFile);
  let floorRes;
  try {
    floorRes = await load(floor, { url: floor.url + threadsPath(), headers: auth() });
    checkLoad('read floor', floorRes);
    log(`read floor: ${loadText(floorRes)}`);
  } finally {
    await stopServer(floor);
  }
  const refs = `json-server: ${loadText(jsRes)}<br>floor: ${loadText(floorRes)} (${fmt.n(Buffer.byteLength(body))} B body)`;
  if (!wcmRes) return row(figure, NOT_IMPLEMENTED, refs, '—', '≥ 100× json-server and ≥ 50% of the floor', null);
  const vsJs = wcmRes.rps / jsRes.rps;
  const vsFloor = wcmRes.rps / floorRes.rps;
  row(
    figure,
    loadText(wcmRes),
    refs,
    `${fmt.x(vsJs)} json-server<br>${fmt.pct(vsFloor)} of floor (CPU/req ${fmt.x(wcmRes.cpuPerRequestMs / floorRes.cpuPerRequestMs)} the floor's)`,
    '≥ 100× json-server and ≥ 50% of the floor',
    vsJs >= 100 && vsFloor >= 0.5,
  );
}

async function benchPaging() {
  const dataFile = threadsStore ?? (threadsStore = await prepareStore(data.threads.fixture, 'threads'));
  const figure = `\`wcm threads ls --all --json\` (${fmt.n(data.threads.count)} threads; ${fmt.n(data.threads.inboxCountMain)} in the listed inbox): wall time; CLI peak RSS`;
  const target = '≤ 1.5× the fetch loop; peak RSS < 150 MB';
  const wcm = await startWcm(dataFile);
  try {
    const probe = await listThreadsStatus(wcm.url);
    if (probe.status === 501) return row(figure, NOT_IMPLEMENTED, '—', '—', target, null);
    const env = { ...cliEnv, WCM_BASE_URL: wcm.url, WCM_TOKEN: data.token, WCM_WORKSPACE: data.workspaceId };
    const outFile = path.join(work, 'paging-out.json');
    const expect = (who) => () => {
      const items = JSON.parse(readFileSync(outFile, 'utf8'));
      if (items.length !== data.threads.inboxCountMain)
        throw new Error(`${who} wrote ${items.length} threads, expected ${data.threads.inboxCountMain}`);
    };
    // Is the command there yet?
    const tryCli = await runOnce(NODE, [WCM, 'threads', 'ls', '--all', '--json'], { env, stdoutFile: outFile });
    if (tryCli.code === 2 && /unknown command/i.test(tryCli.stderr))
      return row(figure, 'n/a (`wcm threads ls` not implemented)', '—', '—', target, null);
    const cli = await wallTime(NODE, [WCM, 'threads', 'ls', '--all', '--json'], {
      runs: cfg.slowRuns,
      env,
      stdoutFile: outFile,
      measureRss: true,
      check: expect('wcm threads ls'),
    });
    log(`wcm threads ls --all --json: ${fmt.ms(cli.medianMs)} ms, peak ${fmt.mb(cli.peakMB)}`);
    const loopUrl = `${wcm.url}/workspaces/${data.workspaceId}/threads?limit=100`;
    const loop = await wallTime(NODE, [path.join(ROOT, 'test/bench/fetch-loop.mjs'), loopUrl, data.token], {
      runs: cfg.slowRuns,
      stdoutFile: outFile,
      measureRss: true,
      check: expect('the fetch loop'),
    });
    log(`fetch loop: ${fmt.ms(loop.medianMs)} ms, peak ${fmt.mb(loop.peakMB)}`);
    const ratio = cli.medianMs / loop.medianMs;
    row(
      figure,
      `${wallText(cli)}; ${fmt.mb(cli.peakMB)}`,
      `fetch loop: ${wallText(loop)}; ${fmt.mb(loop.peakMB)}`,
      `${fmt.x(ratio)}${cpuRatio(cli, loop)}`,
      target,
      ratio <= 1.5 && cli.peakMB < 150,
    );
  } finally {
    await stopWcm(wcm);
  }
}

/**
 * The dashboard's inbox against the API for the same page: the page of 50 the read row lists, as
 * HTML for a signed-in browser and as JSON for a token, on one server, in alternating windows.
 */
async function benchDashboard() {
  const q = data.threads.query;
  const dataFile = threadsStore ?? (threadsStore = await prepareStore(data.threads.fixture, 'threads'));
  const figure = `dashboard inbox page (\`view=${q.view}&channel=${q.channel}\`, 50 rows, ${fmt.n(data.threads.count)} threads) against listThreads for the same page: req/s, p99`;
  const target = "≤ 2× the API's time per page";
  const wcm = await startWcm(dataFile);
  try {
    // Sign in as the bench token's user through the account chooser (the server listens on loopback).
    const cookie = await dashboardSignIn(wcm.url.replace(/\/v1$/, ''));
    if (cookie === null) return row(figure, 'n/a (no dashboard on this server)', '—', '—', target, null);
    const pageUrl = `${wcm.url.replace(/\/v1$/, '')}/dashboard/workspaces/${q.workspaceId}/threads?view=${q.view}&channel=${q.channel}`;
    const probe = await httpRequest(pageUrl, { headers: { cookie } });
    const ids = [...probe.body.toString().matchAll(/href="threads\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
    if (JSON.stringify(ids) !== JSON.stringify(data.threads.expectedIds))
      throw new Error(`the dashboard's page is not the expected page (${probe.status}, first ids ${ids.slice(0, 3)})`);
    const dashboardSpec = { url: pageUrl, headers: { cookie } };
    const apiSpec = { url: wcm.url + threadsPath(), headers: auth() };
    // Both paths warm up first (JIT, row caches), as a server that has been serving would be.
    for (const spec of [dashboardSpec, apiSpec]) await load(wcm, { ...spec, duration: 2 });
    const pair = await alternate({ server: wcm, spec: dashboardSpec }, { server: wcm, spec: apiSpec });
    checkLoad('dashboard inbox', pair.a);
    checkLoad('listThreads', pair.b);
    log(
      `dashboard: ${loadText(pair.a)}; API: ${loadText(pair.b)}; per-round ratios ${pair.ratios.map(fmt.pct).join(' ')}`,
    );
    // Time per page is the inverse of throughput under the same load.
    const timeRatio = pair.b.rps / pair.a.rps;
    row(
      figure,
      loadText(pair.a),
      `listThreads: ${loadText(pair.b)}`,
      `${fmt.x(timeRatio)} the API's time (CPU/req ${fmt.x(pair.a.cpuPerRequestMs / pair.b.cpuPerRequestMs)})`,
      target,
      timeRatio <= 2,
    );
  } finally {
    await stopWcm(wcm);
  }
}

/**
 * `tools/call listThreads` over /mcp (Streamable HTTP, stateless JSON) against a direct GET of the
 * same page, on one server, in alternating windows after a warm-up.
 */
async function benchMcp() {
  const q = data.threads.query;
  const dataFile = threadsStore ?? (threadsStore = await prepareStore(data.threads.fixture, 'threads'));
  const figure = `MCP \`tools/call listThreads\` over HTTP (\`view=${q.view}&channel=${q.channel}\`, ${q.limit} rows, ${fmt.n(data.threads.count)} threads) against a direct GET of the same page: req/s, p99`;
  const target = "the MCP path's own cost: ≤ 1.25× the floor's ratio";
  const wcm = await startWcm(dataFile);
  try {
    const url = `${wcm.url.replace(/\/v1$/, '')}/mcp`;
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'listThreads',
        arguments: { workspace: q.workspaceId, view: q.view, channel: q.channel, limit: q.limit },
      },
    });
    const headers = { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const probe = await httpRequest(url, { method: 'POST', headers, body });
    if (probe.status === 404) return row(figure, 'n/a (no /mcp on this server)', '—', '—', target, null);
    const ids = (JSON.parse(probe.body.toString()).result?.structuredContent?.data ?? []).map((t) => t.id);
    if (JSON.stringify(ids) !== JSON.stringify(data.threads.expectedIds))
      throw new Error(
        `the MCP call did not return the expected page (${probe.status}: ${probe.body.toString().slice(0, 200)})`,
      );
    const mcpSpec = { url, method: 'POST', headers, body };
    const apiSpec = { url: wcm.url + threadsPath(), headers: auth() };
    for (const spec of [mcpSpec, apiSpec]) await load(wcm, { ...spec, duration: 2 });
    const pair = await alternate({ server: wcm, spec: mcpSpec }, { server: wcm, spec: apiSpec });
    checkLoad('MCP tools/call', pair.a);
    checkLoad('listThreads', pair.b);
    log(`mcp: ${loadText(pair.a)}; API: ${loadText(pair.b)}; per-round ratios ${pair.ratios.map(fmt.pct).join(' ')}`);
    // Shown beside them, measured after them (so the MCP pair runs exactly as it always has): the
    // same GET for twice the rows, about as many bytes as the MCP answer (which carries the page
    // twice), so what bytes cost and what the MCP path's own work costs can be told apart.
    const bigSpec = {
      url: wcm.url + threadsPath().replace(`limit=${q.limit}`, `limit=${2 * q.limit}`),
      headers: auth(),
    };
    await load(wcm, { ...bigSpec, duration: 2 });
    const bytesPair = await alternate({ server: wcm, spec: bigSpec }, { server: wcm, spec: apiSpec });
    const big = bytesPair.a;
    checkLoad(`listThreads limit=${2 * q.limit}`, big);
    log(
      `API, ${2 * q.limit} rows: ${loadText(big)}; API: ${loadText(bytesPair.b)}; per-round ratios ${bytesPair.ratios.map(fmt.pct).join(' ')}`,
    );
    // The floor, also after the MCP pair: bare node:http servers answering the two calls with the
    // very bytes wcm answered them with (the request body read and dropped), no work at all. The
    // time ratio they reach is what the two answers' sizes alone cost, the load generator's reading
    // of them included.
    const apiBodyFile = path.join(work, 'mcp-floor-api.json');
    const mcpBodyFile = path.join(work, 'mcp-floor-mcp.json');
    writeFileSync(apiBodyFile, (await httpRequest(apiSpec.url, { headers: auth() })).body);
    writeFileSync(mcpBodyFile, probe.body);
    const floors = [await startFloor('read', mcpBodyFile), await startFloor('read', apiBodyFile)];
    let floorPair;
    try {
      const [fm, fa] = floors;
      const fmSpec = { ...mcpSpec, url: `${fm.url}/mcp` };
      const faSpec = { ...apiSpec, url: fa.url + threadsPath() };
      for (const [s, spec] of [
        [fm, fmSpec],
        [fa, faSpec],
      ])
        await load(s, { ...spec, duration: 2 });
      floorPair = await alternate({ server: fm, spec: fmSpec }, { server: fa, spec: faSpec });
      checkLoad('MCP floor', floorPair.a);
      checkLoad('listThreads floor', floorPair.b);
      log(
        `floor, MCP answer: ${loadText(floorPair.a)}; floor, API answer: ${loadText(floorPair.b)}; per-round ratios ${floorPair.ratios.map(fmt.pct).join(' ')}`,
      );
    } finally {
      for (const f of floors) await stopServer(f);
      rmSync(apiBodyFile, { force: true });
      rmSync(mcpBodyFile, { force: true });
    }
    const timeRatio = pair.b.rps / pair.a.rps;
    // Stated against the floor (docs/mcp.md): a server doing no work at all pays the floor's ratio for
    // the answer's size; what the MCP path adds on top of that is its own cost.
    const floorRatio = floorPair.b.rps / floorPair.a.rps;
    const ownCost = timeRatio / floorRatio;
    const kb = (r) => `${Math.round(r.bytesPerResponse / 1000)} KB`;
    row(
      figure,
      `${loadText(pair.a)} (${kb(pair.a)})`,
      `GET listThreads: ${loadText(pair.b)} (${kb(pair.b)})<br>the same GET for ${2 * q.limit} rows: ${loadText(big)} (${kb(big)})<br>floor (node:http sending the same two answers): ${loadText(floorPair.a)} against ${loadText(floorPair.b)}`,
      `**${fmt.x(ownCost)} the floor's ratio**<br>${fmt.x(timeRatio)} the direct call's time (CPU/req ${fmt.x(pair.a.cpuPerRequestMs / pair.b.cpuPerRequestMs)})<br>${2 * q.limit} rows: ${fmt.x(bytesPair.b.rps / big.rps)} (CPU/req ${fmt.x(big.cpuPerRequestMs / bytesPair.b.cpuPerRequestMs)})<br>floor: ${fmt.x(floorPair.b.rps / floorPair.a.rps)} (CPU/req ${fmt.x(floorPair.a.cpuPerRequestMs / floorPair.b.cpuPerRequestMs)})`,
      target,
      ownCost <= 1.25,
    );
  } finally {
    await stopWcm(wcm);
  }
}

/** docs/mcp.md, context budget: what `tools/list` costs an agent on every turn. */
const TOOLS_LIST_BUDGET = { total: 24_000, model: 12_000 };

/**
 * The bytes of `tools/list` on /mcp for an all-abilities token (the demo owner's), in all and the
 * part a model reads (name, title, description, inputSchema), beside the budget, with the usual
 * estimate of 4 bytes a token.
 */
async function benchToolsList() {
  const figure =
    '`tools/list` on /mcp for an all-abilities token: bytes in all and model-facing (name, title, description, inputSchema); tokens ≈ bytes / 4';
  const target = `≤ ${fmt.n(TOOLS_LIST_BUDGET.total)} B in all, ≤ ${fmt.n(TOOLS_LIST_BUDGET.model)} B model-facing`;
  const wcm = await startWcm(path.join(work, 'tools-list', 'store.json'), {
    seed: path.join(ROOT, 'fixtures/demo.json'),
  });
  try {
    const res = await httpRequest(`${wcm.url.replace(/\/v1$/, '')}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${DEMO_OWNER}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    if (res.status === 404) return row(figure, 'n/a (no /mcp on this server)', '—', '—', target, null);
    if (res.status !== 200) throw new Error(`tools/list answered ${res.status}: ${res.body.toString().slice(0, 200)}`);
    const { tools } = JSON.parse(res.body.toString()).result;
    const total = res.body.length;
    const model = Buffer.byteLength(
      JSON.stringify(
        tools.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema })),
      ),
    );
    const tokens = (b) => `≈ ${fmt.n(Math.round(b / 4))} tokens`;
    row(
      figure,
      `${fmt.n(total)} B (${tokens(total)}); model-facing ${fmt.n(model)} B (${tokens(model)}); ${tools.length} tools`,
      `budget: ${fmt.n(TOOLS_LIST_BUDGET.total)} B and ${fmt.n(TOOLS_LIST_BUDGET.model)} B`,
      `${fmt.pct(total / TOOLS_LIST_BUDGET.total)} and ${fmt.pct(model / TOOLS_LIST_BUDGET.model)} of the budget`,
      target,
      total <= TOOLS_LIST_BUDGET.total && model <= TOOLS_LIST_BUDGET.model,
    );
  } finally {
    await stopWcm(wcm);
  }
}

/**
 * The control plane's reset (docs/server.md#controlling-a-running-server-reset-snapshots-faults-clock-request-log) while serving, on a copy of the 100,000-thread data
 * file: to empty, and back from a snapshot of it (against a cold start of the same file), and to
 * a small snapshot (what a suite does between tests).
 */
async function benchReset() {
  const dataFile = threadsStore ?? (threadsStore = await prepareStore(data.threads.fixture, 'threads'));
  const dir = path.join(work, 'reset');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, 'store.json');
  for (const suffix of ['', '.journal'])
    if (existsSync(dataFile + suffix)) copyFileSync(dataFile + suffix, copy + suffix);
  const wcm = await startWcm(copy);
  try {
    const first = await listThreadsStatus(wcm.url);
    const coldMs = performance.now() - wcm.t0;
    if (first.status !== 200) throw new Error(`the first request answered ${first.status}`);
    const origin = wcm.url.replace(/\/v1$/, '');
    const control = async (p, body) => {
      const t = performance.now();
      const r = await httpRequest(`${origin}/_emulator${p}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (r.status >= 300) throw new Error(`${p} answered ${r.status}: ${r.body.toString().slice(0, 300)}`);
      return performance.now() - t;
    };
    const snapBig = await control('/snapshots', { name: 'big' });
    const toEmpty = await control('/reset', { to: 'empty' });
    // The demo data as a small snapshot, saved by the server (a fixture document in the snapshots
    // directory, as snapshots were saved before, is read too: loaded once, then saved again).
    copyFileSync(path.join(ROOT, 'fixtures/demo.json'), `${copy}.snapshots/demo.json`);
    await control('/reset', { to: 'demo' });
    await control('/snapshots', { name: 'small' });
    const small = [];
    for (let i = 0; i < (cfg.quick ? 3 : 10); i++) small.push(await control('/reset', { to: 'small' }));
    const fromSnapshot = await control('/reset', { to: 'big' });
    // The data file was seeded from the fixture (prepareStore), so `seed` reads it again as --seed does.
    const toSeed = await control('/reset', { to: 'seed' });
    const back = await listThreadsStatus(wcm.url);
    if (back.status !== 200) throw new Error(`after the reset the page answered ${back.status}`);
    log(
      `reset: snapshot of the big state ${fmt.ms(snapBig)} ms, to empty ${fmt.ms(toEmpty)} ms, back from the snapshot ${fmt.ms(fromSnapshot)} ms, to the small snapshot ${small.map(fmt.ms).join(' ')} ms, to the seed ${fmt.ms(toSeed)} ms; cold start ${fmt.ms(coldMs)} ms`,
    );
    const cold = `cold start of the same data file: ${(coldMs / 1000).toFixed(2)} s`;
    row(
      `reset of a server holding ${fmt.n(data.threads.count)} threads, while serving (\`POST /_emulator/reset\`, to empty): wall time`,
      `${(toEmpty / 1000).toFixed(2)} s`,
      cold,
      fmt.x(toEmpty / coldMs),
      'under the cold start time',
      toEmpty < coldMs,
    );
    row(
      `reset back to the ${fmt.n(data.threads.count)}-thread state from a snapshot of it, while serving: wall time`,
      `${(fromSnapshot / 1000).toFixed(2)} s`,
      cold,
      fmt.x(fromSnapshot / coldMs),
      '≤ 1.5× the cold start',
      fromSnapshot <= 1.5 * coldMs,
    );
    row(
      `reset to the seed (\`--to seed\`: the ${fmt.n(data.threads.count)}-thread fixture read again as \`serve --seed\` reads it), while serving: wall time`,
      `${(toSeed / 1000).toFixed(2)} s`,
      cold,
      fmt.x(toSeed / coldMs),
      'no target (compare `serve --seed` above)',
      null,
    );
    const m = median(small);
    row(
      'reset to a small snapshot (the demo data, saved by the server: what a suite resets to between tests), while serving: wall time (median)',
      `${m.toFixed(1)} ms`,
      '—',
      '—',
      '< 50 ms',
      m < 50,
    );
  } finally {
    await stopWcm(wcm);
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes a fixture of `count` threads in demo.json's workspace, batch by batch (a million threads
 * are more text than one string can hold): `threads-N.json` in the data directory, kept.
 */
function threadsFixture(count) {
  const file = path.join(cfg.dir, `threads-${count}.json`);
  if (existsSync(file)) return file;
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  writeSync(fd, '{"version":1,"threads":[');
  const BATCH = 50_000;
  for (let done = 0, seed = 1; done < count; done += BATCH, seed++) {
    const { threads } = generateThreads({ count: Math.min(BATCH, count - done), seed });
    const text = JSON.stringify(threads);
    writeSync(fd, `${done ? ',' : ''}${text.slice(1, -1)}`);
  }
  writeSync(fd, ']}');
  closeSync(fd);
  renameSync(tmp, file);
  return file;
}

/** `wcm local import` of a large fixture into an empty data file (docs/server.md, bulk loads): wall time, peak RSS. */
async function benchImport() {
  const count = cfg.importThreads;
  log(`import: writing a ${fmt.n(count)}-thread fixture (once; kept in ${cfg.dir})`);
  const fixture = threadsFixture(count);
  const bytes = statSync(fixture).size;
  const dir = path.join(work, 'import');
  mkdirSync(dir, { recursive: true });
  const out = path.join(dir, 'stdout.txt');
  try {
    const demo = path.join(ROOT, 'fixtures/demo.json');
    const demoThreads = JSON.parse(readFileSync(demo, 'utf8')).threads.length;
    const r = await runOnce(NODE, [WCM, 'local', 'import', '--data', path.join(dir, 'store.json'), demo, fixture], {
      env: cliEnv,
      stdoutFile: out,
      measureRss: true,
    });
    const printed = readFileSync(out, 'utf8');
    const ok = r.code === 0 && printed.includes(`${count + demoThreads} threads`);
    log(
      `import: exit ${r.code} in ${fmt.ms(r.ms)} ms, peak RSS ${Math.round(r.peakMB)} MB; ${printed.trim()} ${r.stderr.slice(-500)}`,
    );
    row(
      `\`wcm local import\` of a ${fmt.n(count)}-thread fixture (${(bytes / 1e6).toFixed(0)} MB) into an empty data file: wall time; peak RSS`,
      ok
        ? `${(r.ms / 1000).toFixed(1)} s; ${Math.round(r.peakMB)} MB`
        : `failed (exit ${r.code}): ${r.stderr.trim().split('\n').pop()}`,
      '—',
      '—',
      'completes, streamed (the fixture is past the longest string V8 holds); peak RSS printed',
      ok,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchWrite() {
  const figure = `createListing, durable before the reply, ${fmt.n(data.listings.count)} listings stored: req/s, p99`;
  const target = '≥ 100× json-server and ≥ 100% of the fsync-per-request floor';
  const listing = {
    title: 'Bench listing',
    template_slug: 'faq',
    items: [{ title: 'Hours?', description: 'Nine to five, Monday to Friday.' }],
  };
  const body = JSON.stringify(listing);
  const json = { 'content-type': 'application/json' };
  // wcm (on a data file already holding the listings) and the floor run side by side, and the
  // load alternates between them in short windows: this machine's speed drifts by tens of percent
  // within a minute, so the ratio is taken per round, between windows seconds apart.
  const dataFile = await prepareStore(data.listings.fixture, 'listings');
  const wcm = await startWcm(dataFile);
  const floor = await startFloor('write', path.join(work, 'write-floor.log'));
  let pair;
  try {
    const url = `${wcm.url}/workspaces/${data.workspaceId}/lists`;
    const probe = await httpRequest(url, { method: 'POST', headers: { ...json, ...auth() }, body });
    if (probe.status !== 201) throw new Error(`createListing answered ${probe.status}: ${probe.body}`);
    // The data file was written just before (about 40 MB): flush it now, so the kernel's
    // background writeback of it does not compete with the first rounds' syncs, on either side.
    execFileSync('sync');
    await new Promise((r) => setTimeout(r, 1000));
    pair = await alternate(
      { server: wcm, spec: { url, method: 'POST', headers: { ...json, ...auth() }, body } },
      { server: floor, spec: { url: `${floor.url}/listings`, method: 'POST', headers: { ...json, ...auth() }, body } },
    );
    checkLoad('wcm createListing', pair.a);
    checkLoad('write floor', pair.b);
    log(
      `wcm write: ${loadText(pair.a)}; floor: ${loadText(pair.b)}; per-round ratios ${pair.ratios.map(fmt.pct).join(' ')}`,
    );
  } finally {
    await stopWcm(wcm);
    await stopServer(floor);
  }
  const wcmRes = pair.a;
  const floorRes = pair.b;
  // Every acknowledged write must be in the data file after the stop.
  const { readSnapshot } = await import(path.join(ROOT, 'dist/src/store/json/snapshot.js'));
  let stored = 0;
  readSnapshot(readFileSync(dataFile), { record: (c) => c === 'listings' && stored++, lazy() {} });
  if (stored < data.listings.count + 1 + wcmRes.ok)
    throw new Error(
      `wcm acknowledged ${wcmRes.ok + 1} writes but the data file holds ${stored - data.listings.count} new listings`,
    );
  rmSync(path.dirname(dataFile), { recursive: true, force: true });

  // json-server writes its db file on every change: it gets its own copy.
  const db = path.join(work, 'listings-db.json');
  copyFileSync(data.listings.db, db);
  const js = await startJsonServer(db, '/listings?_limit=1');
  let jsRes;
  try {
    const probe = await httpRequest(`${js.url}/listings`, { method: 'POST', headers: json, body });
    if (probe.status !== 201) throw new Error(`json-server POST /listings answered ${probe.status}`);
    jsRes = await load(js, {
      url: `${js.url}/listings`,
      method: 'POST',
      headers: json,
      body,
      duration: Math.max(cfg.duration, 10),
    });
    checkLoad('json-server POST /listings', jsRes);
    log(`json-server write: ${loadText(jsRes)}`);
  } finally {
    await stopServer(js);
  }
  rmSync(db, { force: true });

  const vsJs = wcmRes.rps / jsRes.rps;
  const vsFloor = median(pair.ratios);
  const range = `${fmt.pct(Math.min(...pair.ratios))}–${fmt.pct(Math.max(...pair.ratios))}`;
  row(
    figure,
    loadText(wcmRes),
    `json-server: ${loadText(jsRes)}<br>fsync-per-request floor, alternating with wcm: ${loadText(floorRes)}`,
    `${fmt.x(vsJs)} json-server<br>${fmt.pct(vsFloor)} of floor (median of ${pair.ratios.length} rounds, ${range}; CPU/req ${fmt.x(wcmRes.cpuPerRequestMs / floorRes.cpuPerRequestMs)} the floor's)`,
    target,
    vsJs >= 100 && vsFloor >= 1,
  );
}

async function benchCli() {
  const node0 = await wallTime(NODE, ['-e', '0'], { runs: cfg.runs });
  log(`node -e 0: ${fmt.ms(node0.medianMs)} ms`);
  const version = await wallTime(NODE, [WCM, '--version'], { runs: cfg.runs, env: cliEnv });
  log(`wcm --version: ${fmt.ms(version.medianMs)} ms`);
  const r1 = version.medianMs / node0.medianMs;
  row(
    '`wcm --version`: wall time (median)',
    wallText(version),
    `\`node -e 0\`: ${wallText(node0)}`,
    `${fmt.x(r1)}${cpuRatio(version, node0)}`,
    '≤ 1.5× `node -e 0`',
    r1 <= 1.5,
  );

  const dataFile = path.join(work, 'small', 'store.json');
  const wcm = await startWcm(dataFile, { seed: data.smallListings.fixture });
  try {
    const env = { ...cliEnv, WCM_BASE_URL: wcm.url, WCM_TOKEN: data.token, WCM_WORKSPACE: data.workspaceId };
    const outFile = path.join(work, 'lists-out.json');
    const ls = await wallTime(NODE, [WCM, 'lists', 'ls', '--json'], {
      runs: cfg.runs,
      env,
      stdoutFile: outFile,
      check: () => {
        const items = JSON.parse(readFileSync(outFile, 'utf8'));
        if (!Array.isArray(items) || items.length !== 25)
          throw new Error(`wcm lists ls --json printed ${items.length} listings, expected the first page of 25`);
      },
    });
    log(`wcm lists ls --json: ${fmt.ms(ls.medianMs)} ms`);
    const r2 = ls.medianMs / node0.medianMs;
    row(
      `\`wcm lists ls --json\` against a running local server (${data.smallListings.count} listings): wall time (median)`,
      wallText(ls),
      `\`node -e 0\`: ${wallText(node0)}`,
      `${fmt.x(r2)}${cpuRatio(ls, node0)}`,
      '≤ 3× `node -e 0`',
      r2 <= 3,
    );
  } finally {
    await stopWcm(wcm);
  }
}

// ---- main
const pg = pgSections({
  cfg,
  row,
  notes,
  fmt,
  log,
  work,
  get data() {
    return data;
  },
  auth,
  threadsPath,
  threadsStore: () => threadsStore,
  threadsFixture,
  prepareStore,
  startWcm,
  stopWcm,
  startFloor,
  stopServer,
  load,
  alternate,
  checkLoad,
  cpuText,
  memoryOf,
  sync: () => execFileSync('sync'),
  runOnce,
  NODE,
  WCM,
  cliEnv,
  DEMO: path.join(ROOT, 'fixtures/demo.json'),
  writeBody: (name, body) => {
    const file = path.join(work, name);
    writeFileSync(file, body);
    return file;
  },
});
/**
 * `wcm pull` of one workspace of 10,000 threads (and demo.json's Acme Coffee around them) from a
 * local server, against a bare fetch loop making the same GETs at the same concurrency
 * (test/bench/pull-loop.mjs), one after the other in the same run: wall time; the CLI's peak RSS.
 */
async function benchPull() {
  const count = 10_000;
  const concurrency = 4;
  const demo = path.join(ROOT, 'fixtures/demo.json');
  const dataFile = await prepareStore([demo, threadsFixture(count)], 'pull');
  const figure = `\`wcm pull\` of a workspace of ${fmt.n(count)} threads (+ the demo's Acme Coffee; every view, getThread for each, --concurrency ${concurrency}): wall time; CLI peak RSS`;
  const target = '≤ 1.5× the fetch loop; peak RSS < 200 MB';
  const wcm = await startWcm(dataFile);
  const ws = '775050e9-98e8-4600-8d0f-afce4b67e137';
  const token = 'wcm_pat_demoOwnerAllAbilities0123456789abcdefghi';
  const out = path.join(work, 'pull-out.json');
  const demoThreads = JSON.parse(readFileSync(demo, 'utf8')).threads.filter((t) => t.workspace_id === ws).length;
  try {
    const env = { ...cliEnv, WCM_BASE_URL: wcm.url, WCM_TOKEN: token, WCM_WORKSPACE: ws };
    const cli = await wallTime(NODE, [WCM, 'pull', '--output', out, '--concurrency', String(concurrency)], {
      runs: cfg.slowRuns,
      env,
      measureRss: true,
      check: () => {
        const n = JSON.parse(readFileSync(out, 'utf8')).threads.length;
        if (n !== count + demoThreads) throw new Error(`wcm pull wrote ${n} threads, expected ${count + demoThreads}`);
      },
    });
    log(`wcm pull: ${fmt.ms(cli.medianMs)} ms, peak ${fmt.mb(cli.peakMB)}`);
    const loop = await wallTime(
      NODE,
      [path.join(ROOT, 'test/bench/pull-loop.mjs'), wcm.url, token, ws, String(concurrency), out],
      { runs: cfg.slowRuns, measureRss: true },
    );
    log(`pull loop: ${fmt.ms(loop.medianMs)} ms, peak ${fmt.mb(loop.peakMB)}`);
    const ratio = cli.medianMs / loop.medianMs;
    row(
      figure,
      `${wallText(cli)}; ${fmt.mb(cli.peakMB)}`,
      `fetch loop: ${wallText(loop)}; ${fmt.mb(loop.peakMB)}`,
      `${fmt.x(ratio)}${cpuRatio(cli, loop)}`,
      target,
      ratio <= 1.5 && cli.peakMB < 200,
    );
  } finally {
    rmSync(out, { force: true });
    await stopWcm(wcm);
  }
}

const sections = {
  startup: benchStartup,
  read: benchRead,
  paging: benchPaging,
  dashboard: benchDashboard,
  mcp: benchMcp,
  'tools-list': benchToolsList,
  reset: benchReset,
  import: benchImport,
  write: benchWrite,
  cli: benchCli,
  pull: benchPull,
  'cli-memory': () => benchCliMemory({ row, log, fmt, cliEnv, NODE, WCM, work }),
  ...pg.sections,
};
const load0 = os.loadavg();
const started = new Date();
let failed = false;
try {
  log(`data sets in ${cfg.dir} (${quick ? 'quick' : 'full'} mode)`);
  data = ensureDatasets({ dir: cfg.dir, threads: cfg.threads, listings: cfg.listings, log });
  for (const [name, fn] of Object.entries(sections)) {
    if (!cfg.only.has(name)) continue;
    log(`— ${name}`);
    try {
      await fn();
    } catch (err) {
      failed = true;
      log(`${name} failed: ${err.stack ?? err}`);
      row(name, `error: ${String(err.message ?? err).split('\n')[0]}`, '—', '—', '—', false);
    }
  }
} finally {
  await pg.close();
  rmSync(work, { recursive: true, force: true });
}

const load1 = os.loadavg();
const cpus = os.cpus();
const lines = [
  `Command: \`npm run bench${quick ? ' -- --quick' : ''}\` · ${started.toISOString()} · Node ${process.version} · ${cpus.length} × ${cpus[0]?.model ?? 'cpu'} · ` +
    `load average ${load0[0].toFixed(1)} at start, ${load1[0].toFixed(1)} at end · ${cfg.connections} connections, ${cfg.duration} s per load run (autocannon in a second process), ` +
    `wall times the median of ${cfg.runs} runs (${cfg.slowRuns} for start-up and paging) · peak RSS via ${peakRssMethod()}`,
  '',
  '| figure | wcm | reference(s) | ratio | target | met? |',
  '|---|---|---|---|---|---|',
  ...rows.map((r) => `| ${r.figure} | ${r.wcm} | ${r.refs} | ${r.ratio} | ${r.target} | ${r.met} |`),
];
if (quick)
  lines.push(
    '',
    `Quick mode: ${fmt.n(cfg.threads)} threads and ${fmt.n(cfg.listings)} listings instead of 100,000; not comparable with a full run.`,
  );
if (load0[0] > cpus.length)
  lines.push(
    '',
    `The machine was busy (load average ${load0[0].toFixed(1)} on ${cpus.length} CPUs): absolute figures are noisy; ratios measured in the same run are the useful part.`,
  );
for (const n of notes) lines.push('', n);
const md = lines.join('\n') + '\n';
process.stdout.write(`\n${md}`);
writeFileSync(cfg.out, md);
log(`written to ${path.relative(process.cwd(), cfg.out)}`);
process.exit(failed ? 1 : 0);
