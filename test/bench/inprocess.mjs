#!/usr/bin/env node
// What a path costs itself, without the load generator, sockets or the other core's noise: one of
// the bench's pair rows (100,000 threads, the page of 50 the read row lists) with both requests
// sent through `app.handle` in this process, 10 in flight, alternating in rounds (which goes first
// flips every round); each answer's parts are copied out as http.ts copies them into its send
// buffer. Prints each side's CPU per call and the per-round ratios.
//   node test/bench/inprocess.mjs [--page mcp|dashboard] [--rounds 10] [--calls 5000]
//   --page mcp        `tools/call listThreads` over /mcp against GET listThreads (the MCP row)
//   --page dashboard  the dashboard's inbox page against GET listThreads (the dashboard row)
// Needs the build (dist/, made by npm install) and the bench data sets (made on first use).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, ensureDatasets } from './datasets.mjs';
import { dashboardSignIn } from './procs.mjs';

const fail = (message) => {
  console.error(`inprocess: ${message}`);
  process.exit(2);
};
const given = (name) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? undefined : (process.argv[i + 1] ?? '');
};
const count = (name, dflt) => {
  const v = given(name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) fail(`--${name} takes a whole number of at least 1 (got ${v || 'nothing'}).`);
  return n;
};
const known = new Set(['--page', '--rounds', '--calls']);
for (let i = 2; i < process.argv.length; i += 2)
  if (!known.has(process.argv[i]))
    fail(`unknown option ${process.argv[i]} (options: --page mcp|dashboard, --rounds N, --calls N).`);
const pageName = given('page') ?? 'mcp';
if (pageName !== 'mcp' && pageName !== 'dashboard') fail(`--page is mcp or dashboard (got ${pageName || 'nothing'}).`);
const rounds = count('rounds', 10);
const calls = count('calls', 5000);
const IN_FLIGHT = 10;
const log = (l) => console.error(`[inprocess] ${l}`);

const { startLocalServer } = await import(path.join(ROOT, 'dist/src/server/serve.js'));
const { extendServer } = await import(path.join(ROOT, 'dist/src/server/extend.js'));
const data = ensureDatasets({ log });
const q = data.threads.query;
const dir = mkdtempSync(path.join(os.tmpdir(), 'wcm-inprocess-'));
log(`seeding ${data.threads.count} threads into ${dir}`);
const server = await startLocalServer({
  dataFile: path.join(dir, 'store.json'),
  port: 0,
  seeds: [data.threads.fixture],
  extend: extendServer,
});
try {
  const authorization = `Bearer ${data.token}`;
  const get = () => ({
    method: 'GET',
    url: `/v1/workspaces/${q.workspaceId}/threads?view=${q.view}&channel=${q.channel}&limit=${q.limit}`,
    headers: { host: 'localhost', authorization },
    body: Buffer.alloc(0),
  });
  let other;
  if (pageName === 'mcp') {
    const body = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'listThreads',
          arguments: { workspace: q.workspaceId, view: q.view, channel: q.channel, limit: q.limit },
        },
      }),
    );
    other = () => ({
      method: 'POST',
      url: '/mcp',
      headers: {
        host: 'localhost',
        authorization,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body,
    });
  } else {
    // Signed in as the bench token's user, as the bench row signs in.
    const cookie = await dashboardSignIn(server.url.replace(/\/v1$/, ''));
    other = () => ({
      method: 'GET',
      url: `/dashboard/workspaces/${q.workspaceId}/threads?view=${q.view}&channel=${q.channel}`,
      headers: { host: 'localhost', cookie },
      body: Buffer.alloc(0),
    });
  }
  const requests = { get, [pageName]: other };
  const sendBuffer = Buffer.allocUnsafeSlow(64 * 1024);
  const run = async (side, n) => {
    for (let i = 0; i < n; i += IN_FLIGHT) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(IN_FLIGHT, n - i) }, () => server.app.handle(requests[side]())),
      );
      for (const a of answers) {
        if (a.status !== 200) throw new Error(`${side}: ${a.status} ${String(a.body).slice(0, 300)}`);
        let at = 0;
        if (a.parts) for (const p of a.parts) at += p.copy(sendBuffer, at);
        else Buffer.byteLength(a.body);
      }
    }
  };
  // Warm-up, not counted.
  await run('get', calls);
  await run(pageName, calls);
  const cpu = { get: [], [pageName]: [] };
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 ? [pageName, 'get'] : ['get', pageName]) {
      const c0 = process.cpuUsage();
      await run(side, calls);
      const c = process.cpuUsage(c0);
      cpu[side].push((c.user + c.system) / calls);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const ratios = cpu.get.map((g, i) => cpu[pageName][i] / g);
  const label = pageName === 'mcp' ? 'MCP tools/call' : 'dashboard inbox page';
  console.log(
    `GET listThreads: ${median(cpu.get).toFixed(1)} µs CPU per call; ${label}: ${median(cpu[pageName]).toFixed(1)} µs (medians of ${rounds} rounds of ${calls} calls, ${IN_FLIGHT} in flight)\n` +
      `${label} / GET per round: median ${median(ratios).toFixed(2)}× [${ratios.map((x) => x.toFixed(2)).join(' ')}]`,
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
