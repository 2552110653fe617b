#!/usr/bin/env node
// What the MCP path itself costs, without the load generator, sockets or the other core's noise:
// the bench's MCP row (`tools/call listThreads` against GET listThreads of the same page, 100,000
// threads) with both requests sent through `app.handle` in this process, 10 in flight, alternating
// in rounds (which goes first flips every round); each answer's parts are copied out as http.ts
// copies them into its send buffer. Prints each side's CPU per call and the per-round ratios.
//   node test/bench/mcp-inprocess.mjs [--rounds 10] [--calls 5000]
// Needs the build (dist/, made by npm install) and the bench data sets (made on first use).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, ensureDatasets } from './datasets.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return dflt;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) {
    console.error(`mcp-inprocess: --${name} takes a whole number of at least 1 (got ${process.argv[i + 1] ?? 'nothing'}).`);
    process.exit(2);
  }
  return n;
};
const rounds = arg('rounds', 10);
const calls = arg('calls', 5000);
const IN_FLIGHT = 10;

const { startLocalServer } = await import(path.join(ROOT, 'dist/src/server/serve.js'));
const { extendServer } = await import(path.join(ROOT, 'dist/src/server/extend.js'));
const data = ensureDatasets({ log: (l) => console.error(`[mcp-inprocess] ${l}`) });
const q = data.threads.query;
const dir = mkdtempSync(path.join(os.tmpdir(), 'wcm-mcp-inprocess-'));
console.error(`[mcp-inprocess] seeding ${data.threads.count} threads into ${dir}`);
const server = await startLocalServer({ dataFile: path.join(dir, 'store.json'), port: 0, seeds: [data.threads.fixture], extend: extendServer });
try {
  const authorization = `Bearer ${data.token}`;
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'listThreads', arguments: { workspace: q.workspaceId, view: q.view, channel: q.channel, limit: q.limit } } });
  const requests = {
    get: () => ({ method: 'GET', url: `/v1/workspaces/${q.workspaceId}/threads?view=${q.view}&channel=${q.channel}&limit=${q.limit}`, headers: { host: 'localhost', authorization }, body: Buffer.alloc(0) }),
    mcp: () => ({ method: 'POST', url: '/mcp', headers: { host: 'localhost', authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: Buffer.from(body) }),
  };
  const sendBuffer = Buffer.allocUnsafeSlow(64 * 1024);
  const run = async (side, n) => {
    for (let i = 0; i < n; i += IN_FLIGHT) {
      const answers = await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, n - i) }, () => server.app.handle(requests[side]())));
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
  await run('mcp', calls);
  const cpu = { get: [], mcp: [] };
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 ? ['mcp', 'get'] : ['get', 'mcp']) {
      const c0 = process.cpuUsage();
      await run(side, calls);
      const c = process.cpuUsage(c0);
      cpu[side].push((c.user + c.system) / calls);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
  const ratios = cpu.get.map((g, i) => cpu.mcp[i] / g);
  console.log(
    `GET listThreads: ${median(cpu.get).toFixed(1)} µs CPU per call; MCP tools/call: ${median(cpu.mcp).toFixed(1)} µs (medians of ${rounds} rounds of ${calls} calls, ${IN_FLIGHT} in flight)\n` +
      `MCP / GET per round: median ${median(ratios).toFixed(2)}× [${ratios.map((x) => x.toFixed(2)).join(' ')}]`,
  );
} finally {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
