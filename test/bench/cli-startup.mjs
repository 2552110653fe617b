#!/usr/bin/env node
// Start-up cost of the CLI (issue 9): median wall time and CPU of `node -e 0`, `wcm --version`,
// `wcm --help`, `wcm lists ls --json` and `wcm threads ls` against `wcm serve --seed fixtures/demo.json`
// holding 100 listings, and of `wcm serve --seed fixtures/demo.json` itself on an empty store and
// config directory until it answered its first request (issue #34: the tests start it ~120 times).
// Run `npm run build` first; prints one line per command and the ratio to `node -e 0`.
//
//   node test/bench/cli-startup.mjs [--runs N]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './datasets.mjs';
import { cpuTimeOf, httpRequest, median, startServer, stopServer, wallTime } from './procs.mjs';

const argv = process.argv.slice(2);
const runs = Number(argv.includes('--runs') ? argv[argv.indexOf('--runs') + 1] : 10);
const NODE = process.execPath;
const WCM = path.join(ROOT, 'bin/wcm.js');
const TOKEN = 'wcm_pat_demoOwnerAllAbilities0123456789abcdefghi';
const WORKSPACE = '775050e9-98e8-4600-8d0f-afce4b67e137';
const LISTINGS = 100;

const work = mkdtempSync(path.join(os.tmpdir(), 'wcm-cli-startup-'));
// wcm serve saves profile `local` only on an empty store; the CLI reads this directory anyway.
const cliEnv = { WCM_CONFIG_DIR: work, NO_COLOR: '1' };
const server = await serveDemo(work);
const base = server.match[1];
try {
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const count = async () => {
    let n = 0;
    let cursor = '';
    for (;;) {
      const r = await httpRequest(
        `${base}/workspaces/${WORKSPACE}/lists?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        { headers: auth },
      );
      const body = JSON.parse(r.body);
      n += body.data.length;
      cursor = body.meta.next_cursor;
      if (!cursor) return n;
    }
  };
  for (let n = await count(); n < LISTINGS; n++) {
    const r = await httpRequest(`${base}/workspaces/${WORKSPACE}/lists`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ title: `Bench listing ${n + 1}`, template_slug: 'faq' }),
    });
    if (r.status !== 201) throw new Error(`createListing answered ${r.status}: ${r.body}`);
  }
  const total = await count();

  const results = [];
  const measure = async (label, args, opts = {}) => {
    const r = await wallTime(NODE, args, { runs, ...opts });
    results.push({ label, ...r });
    process.stderr.write(`[cli-startup] ${label}: ${r.medianMs.toFixed(0)} ms\n`);
  };
  await measure('node -e 0', ['-e', '0']);
  await measure('wcm --version', [WCM, '--version'], { env: cliEnv });
  await measure('wcm --help', [WCM, '--help'], { env: cliEnv });
  const outFile = path.join(work, 'out.json');
  await measure(`wcm lists ls --json (${total} listings)`, [WCM, 'lists', 'ls', '--json'], {
    env: { ...cliEnv, WCM_BASE_URL: base, WCM_TOKEN: TOKEN, WCM_WORKSPACE: WORKSPACE },
    stdoutFile: outFile,
    check: () => {
      const items = JSON.parse(readFileSync(outFile, 'utf8'));
      if (!Array.isArray(items) || items.length !== 25)
        throw new Error(`wcm lists ls --json printed ${items.length} items, expected the first page of 25`);
    },
  });
  await measure('wcm threads ls', [WCM, 'threads', 'ls'], {
    env: { ...cliEnv, WCM_BASE_URL: base, WCM_TOKEN: TOKEN, WCM_WORKSPACE: WORKSPACE },
  });
  results.push(await serveToFirstAnswer());
  const floor = results[0].medianMs;
  console.log(`| command | median of ${runs} (min–max) | × node -e 0 | CPU (median) |`);
  console.log('|---|---|---|---|');
  for (const r of results)
    console.log(
      `| \`${r.label}\` | ${r.medianMs.toFixed(0)} ms (${r.minMs.toFixed(0)}–${r.maxMs.toFixed(0)}) | ${(r.medianMs / floor).toFixed(2)}× | ${Number.isNaN(r.cpuMs) ? '?' : `${r.cpuMs.toFixed(0)} ms`} |`,
    );
  console.log(
    `\nload average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}, ${os.cpus().length} CPUs, node ${process.version}`,
  );
} finally {
  await stopServer(server);
  rmSync(work, { recursive: true, force: true });
}

/** `wcm serve --seed fixtures/demo.json` on port 0, its data file and config directory in `dir`. */
function serveDemo(dir) {
  return startServer(
    NODE,
    [
      WCM,
      'serve',
      '--port',
      '0',
      '--data',
      path.join(dir, 'store.json'),
      '--seed',
      path.join(ROOT, 'fixtures/demo.json'),
    ],
    { env: { WCM_CONFIG_DIR: dir, NO_COLOR: '1' }, ready: /wcm listening on (\S+)/, name: 'wcm serve' },
  );
}

/**
 * `wcm serve --seed fixtures/demo.json` on an empty data file and config directory, as most tests
 * start it: wall time and CPU (from /proc, 10 ms ticks) until `GET /me` has answered.
 */
async function serveToFirstAnswer() {
  const ms = [];
  const cpu = [];
  for (let i = 0; i <= runs; i++) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wcm-serve-startup-'));
    const s = await serveDemo(dir);
    try {
      const me = await httpRequest(`${s.match[1]}/me`, { headers: { authorization: `Bearer ${TOKEN}` } });
      if (me.status !== 200) throw new Error(`GET /me answered ${me.status}: ${me.body}`);
      // The first run warms the file cache, as wallTime's does.
      if (i > 0) {
        ms.push(performance.now() - s.t0);
        cpu.push(cpuTimeOf(s.child.pid));
      }
    } finally {
      await stopServer(s);
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stderr.write(`[cli-startup] wcm serve: ${median(ms).toFixed(0)} ms, ${median(cpu).toFixed(0)} ms CPU\n`);
  return {
    label: 'wcm serve --seed fixtures/demo.json (empty store): to the first answer',
    medianMs: median(ms),
    cpuMs: median(cpu),
    minMs: Math.min(...ms),
    maxMs: Math.max(...ms),
  };
}
