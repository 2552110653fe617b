#!/usr/bin/env node
// Soak: the built server on a temp store under steady mixed load (reads, writes, public actions)
// for a few minutes. Fails (exit 1) on any unexpected answer or if its RSS grows more than 10%
// after warm-up. Loopback only. Usage: npm run soak [-- --minutes N] [--concurrency N]
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { operationList } = await import(path.join(root, 'dist/src/contract/operations.js'));

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v <= 0) {
    console.error(`\`--${name}\` must be a positive number; received \`${process.argv[i + 1]}\`.`);
    process.exit(2);
  }
  return v;
}
const MINUTES = flag('minutes', 3);
const CONCURRENCY = flag('concurrency', 16);
// Writes and public actions add records: at a fixed rate, so the store's own growth stays small
// next to the RSS budget and growth beyond it means a leak in the request path.
const WRITES_PER_SEC = flag('writes-per-sec', 20);
const PUBLIC_PER_SEC = flag('public-per-sec', 10);
const DURATION = MINUTES * 60_000;
const WARM = Math.min(60_000, DURATION / 3);
const RSS_BUDGET = 0.1;

const demo = {
  owner: 'wcm_pat_demoOwnerAllAbilities0123456789abcdefghi',
  ids: {
    workspace: '775050e9-98e8-4600-8d0f-afce4b67e137', form: 'e5bfd74f-95a3-4f41-b615-83ee8cf45bca', page: '71184361-1989-42ed-9156-e4650146c0d5',
    list: '34245e7c-3e2f-40d4-838c-7d330fa624ba', article: '4b59d3dc-e7ad-4374-92b1-2a4b915ca262', version: '1',
    thread: '5ea2a4c5-c797-4351-8165-a6a2bbcd6086', offer: '47bf2ba6-6986-4574-8021-b3f80bc333f3', agent: '78877ec3-e7f9-4eb3-b628-2184a18c24a4',
  },
};

// ---- the server ----
const dir = mkdtempSync(path.join(tmpdir(), 'wcm-soak-'));
const proc = spawn(process.execPath, [path.join(root, 'bin/wcm.js'), 'serve', '--host', '127.0.0.1', '--port', '0', '--data', path.join(dir, 'store.json'),
  '--seed', path.join(root, 'fixtures/demo.json'), '--rate-limit', '100000000'], { env: { ...process.env, NO_COLOR: '1', CI: 'true', WCM_CONFIG_DIR: path.join(dir, 'config') }, stdio: ['ignore', 'pipe', 'pipe'] });
let serverErr = '';
proc.stderr.on('data', (d) => (serverErr += d));
const base = await new Promise((resolve, reject) => {
  let buf = '';
  const timer = setTimeout(() => reject(new Error(`wcm serve did not start: ${buf}${serverErr}`)), 20_000);
  proc.stdout.on('data', (d) => {
    buf += d;
    const m = /wcm listening on (http:\/\/\S+)/.exec(buf);
    if (m) {
      clearTimeout(timer);
      resolve(m[1]);
    }
  });
  proc.on('exit', (code) => reject(new Error(`wcm serve exited ${code}: ${serverErr}`)));
});
const origin = new URL(base).origin;
const basePath = new URL(base).pathname;
const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 4000 });

// ---- the workload, from the operations table ----
const urlFor = (op) => basePath + op.path.replace(/\{(\w+)\}/g, (_, n) => demo.ids[n]);
let counter = 0;
const bodies = {
  createListing: () => ({ title: `soak ${++counter}`, template_slug: 'faq' }),
  updateForm: () => ({ name: `Soak form ${++counter % 7}` }),
  updatePage: () => ({ name: `Soak page ${++counter % 7}` }),
  createPaymentIntent: () => ({ quantity: 1 }),
  recordAgentChatOpened: () => ({}),
};
const candidates = operationList
  .filter((op) => op.access !== 'signature' && op.operationId !== 'restoreArticleVersion') // restores grow one article without bound
  .map((op) => ({
    op,
    kind: op.access === 'public' ? 'public' : op.method === 'GET' ? 'read' : 'write',
    body: op.method === 'GET' ? undefined : (bodies[op.operationId] ?? (() => ({}))),
  }));

async function send(c) {
  const headers = { 'content-type': 'application/json' };
  if (c.op.access === 'bearer' || c.op.access === 'token') headers.authorization = `Bearer ${demo.owner}`;
  if (c.op.idempotent) headers['idempotency-key'] = randomUUID();
  const started = performance.now();
  const res = await request(origin + urlFor(c.op), { method: c.op.method, headers, body: c.body ? JSON.stringify(c.body()) : undefined, dispatcher: agent });
  const text = await res.body.text();
  return { status: res.statusCode, text, ms: performance.now() - started };
}

// Only what this build implements: a 501 at the probe drops the operation from the mix.
const active = [];
for (const c of candidates) {
  const r = await send(c);
  if (r.status === 501) continue;
  if (r.status !== c.op.status) throw new Error(`probe of ${c.op.operationId} answered ${r.status}: ${r.text.slice(0, 300)}`);
  active.push(c);
}
const byKind = { read: active.filter((c) => c.kind === 'read'), write: active.filter((c) => c.kind === 'write'), public: active.filter((c) => c.kind === 'public') };
console.log(`soak: ${MINUTES} min, ${CONCURRENCY} in flight, server pid ${proc.pid} at ${base}`);
for (const k of ['read', 'write', 'public']) console.log(`  ${k}: ${byKind[k].map((c) => c.op.operationId).join(', ') || '(none implemented)'}`);

// ---- run ----
const t0 = Date.now();
const minutes = []; // per minute: latencies
const byKindMinute = { read: [], write: [], public: [] }; // per kind, per minute: latencies
const rss = []; // {t, kb}
const unexpected = [];
const counts = { read: 0, write: 0, public: 0 };
let writeBudget = 0;
let publicBudget = 0;
let last = Date.now();

function readRss() {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}
function pct(sorted, p) {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
}
function pick() {
  const now = Date.now();
  writeBudget = Math.min(WRITES_PER_SEC, writeBudget + ((now - last) / 1000) * WRITES_PER_SEC);
  publicBudget = Math.min(PUBLIC_PER_SEC, publicBudget + ((now - last) / 1000) * PUBLIC_PER_SEC);
  last = now;
  if (byKind.write.length && writeBudget >= 1) {
    writeBudget--;
    return byKind.write[Math.floor(Math.random() * byKind.write.length)];
  }
  if (byKind.public.length && publicBudget >= 1) {
    publicBudget--;
    return byKind.public[Math.floor(Math.random() * byKind.public.length)];
  }
  return byKind.read[Math.floor(Math.random() * byKind.read.length)];
}

const sampler = setInterval(() => {
  const t = Date.now() - t0;
  const kb = readRss();
  rss.push({ t, kb });
  console.log(`  t=${String(Math.round(t / 1000)).padStart(4)}s  rss=${(kb / 1024).toFixed(1)} MiB  requests=${counts.read + counts.write + counts.public}  load=${loadavg()[0].toFixed(1)}`);
}, 10_000);

async function worker() {
  while (Date.now() - t0 < DURATION) {
    const c = pick();
    const minute = Math.floor((Date.now() - t0) / 60_000);
    try {
      const r = await send(c);
      (minutes[minute] ??= []).push(r.ms);
      (byKindMinute[c.kind][minute] ??= []).push(r.ms);
      counts[c.kind]++;
      if (r.status !== c.op.status) unexpected.push(`${c.op.operationId} → ${r.status} ${r.text.slice(0, 200)}`);
    } catch (err) {
      unexpected.push(`${c.op.operationId} → ${err.code ?? err.message}`);
    }
  }
}
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
clearInterval(sampler);
rss.push({ t: Date.now() - t0, kb: readRss() });

// ---- stop the server gracefully: it must exit 0 ----
proc.kill('SIGTERM');
const exitCode = await new Promise((r) => proc.on('exit', (code) => r(code)));
await agent.close();
rmSync(dir, { recursive: true, force: true });

// ---- report ----
const cell = (l) => {
  const s = [...(l ?? [])].sort((a, b) => a - b);
  return s.length ? `${pct(s, 50).toFixed(1).padStart(6)} ${pct(s, 99).toFixed(1).padStart(7)}` : '     -       -';
};
console.log('\nminute  requests   all p50/p99 ms   read p50/p99    write p50/p99   public p50/p99');
minutes.forEach((l, i) => {
  console.log(`${String(i + 1).padStart(6)}  ${String(l.length).padStart(8)}   ${cell(l)}   ${cell(byKindMinute.read[i])}   ${cell(byKindMinute.write[i])}   ${cell(byKindMinute.public[i])}`);
});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const warmSamples = rss.filter((s) => s.t >= WARM && s.t < WARM + 30_000).map((s) => s.kb);
const baseline = median(warmSamples.length ? warmSamples : rss.slice(0, 1).map((s) => s.kb));
const final = median(rss.slice(-3).map((s) => s.kb));
const growth = final / baseline - 1;
const total = counts.read + counts.write + counts.public;
console.log(`\nrequests: ${total} (${counts.read} reads, ${counts.write} writes, ${counts.public} public), ${(total / (DURATION / 1000)).toFixed(0)}/s`);
console.log(`rss after warm-up ${(baseline / 1024).toFixed(1)} MiB → end ${(final / 1024).toFixed(1)} MiB: ${(growth * 100).toFixed(1)}% (budget ${RSS_BUDGET * 100}%)`);
console.log(`unexpected answers: ${unexpected.length}; server exit code ${exitCode}`);
for (const u of unexpected.slice(0, 10)) console.log(`  ${u}`);
const ok = unexpected.length === 0 && growth <= RSS_BUDGET && exitCode === 0 && total > 0;
console.log(ok ? 'soak: PASS' : 'soak: FAIL');
process.exit(ok ? 0 : 1);
