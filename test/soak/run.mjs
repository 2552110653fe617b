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
// --quick (in `npm test`): 4 in flight, every answer checked, until every operation of the mix was answered
// QUICK_ANSWERS times under load (15 s at most: a fixed 15 s was 11,000 requests where each of the 26
// operations answering ten times proves the same); too short to judge memory, so the RSS budget is not applied.
const QUICK = process.argv.includes('--quick');
const QUICK_ANSWERS = 10;
const MINUTES = flag('minutes', QUICK ? 0.25 : 3);
const CONCURRENCY = flag('concurrency', QUICK ? 4 : 16);
// Writes and public actions add records: at a fixed rate, so the store's own growth stays small
// next to the RSS budget and growth beyond it means a leak in the request path.
const WRITES_PER_SEC = flag('writes-per-sec', 20);
const PUBLIC_PER_SEC = flag('public-per-sec', 10);
const DURATION = MINUTES * 60_000;
const WARM = Math.min(60_000, DURATION / 3);
const RSS_BUDGET = 0.1;

// Ids come from the demo fixture, chosen per path parameter by what the operation's route says it names
// (its not-found code), so `{list}` is a listing for getListing and a knowledge list for listArticles.
const fixture = JSON.parse(readFileSync(path.join(root, 'fixtures/demo.json'), 'utf8'));
const owner = fixture.tokens.find((t) => t.name === 'demo-owner');
const workspace = fixture.workspaces.find((w) =>
  w.members.some((m) => m.user_id === owner.user_id && m.role === 'owner'),
);
const inWs = (rows) => rows.find((r) => r.workspace_id === workspace.id);
const article = fixture.articles.find((a) =>
  fixture.knowledge_lists.some((l) => l.id === a.list_id && l.workspace_id === workspace.id),
);
const ID_BY_NOT_FOUND = {
  workspace_not_found: workspace.id,
  listing_not_found: inWs(fixture.listings).id,
  form_not_found: inWs(fixture.forms).id,
  page_not_found: inWs(fixture.pages).id,
  knowledge_list_not_found: article.list_id,
  article_not_found: article.id,
  version_not_found: '1',
  thread_not_found: inWs(fixture.threads).id,
  offer_not_found: fixture.offers.find((o) => o.workspace_id === workspace.id && o.active !== false).id,
  agent_not_found: inWs(fixture.agents).id,
};
/** The id for parameter `name` of `op`; an operation with a parameter not listed above is left out of the mix. */
const idFor = (op, name) => ID_BY_NOT_FOUND[op.notFound?.[name]];

// ---- the server ----
const dir = mkdtempSync(path.join(tmpdir(), 'wcm-soak-'));
const proc = spawn(
  process.execPath,
  [
    path.join(root, 'bin/wcm.js'),
    'serve',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--data',
    path.join(dir, 'store.json'),
    '--seed',
    path.join(root, 'fixtures/demo.json'),
    '--rate-limit',
    '100000000',
  ],
  {
    env: { ...process.env, NO_COLOR: '1', CI: 'true', WCM_CONFIG_DIR: path.join(dir, 'config') },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
);
let agent;
/** The whole run; whatever happens in it, the server is stopped and the temp store removed (below). */
async function soak() {
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
  agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 4000 });

  // ---- the workload, from the operations table ----
  const urlFor = (op) => basePath + op.path.replace(/\{(\w+)\}/g, (_, n) => idFor(op, n));
  const params = (op) => [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const candidates = operationList
    // Not: signed webhooks; restores (they grow one article without bound); deletes (a record goes once).
    .filter((op) => op.access !== 'signature' && op.operationId !== 'restoreArticleVersion' && op.method !== 'DELETE')
    .filter((op) => params(op).every((n) => idFor(op, n) !== undefined))
    .map((op) => ({
      op,
      kind: op.access === 'public' ? 'public' : op.method === 'GET' ? 'read' : 'write',
      body: op.method === 'GET' ? undefined : () => op.example?.body ?? {},
    }));

  async function send(c) {
    const headers = { 'content-type': 'application/json' };
    if (c.op.access === 'bearer' || c.op.access === 'token') headers.authorization = `Bearer ${owner.token}`;
    if (c.op.idempotent) headers['idempotency-key'] = randomUUID();
    const started = performance.now();
    const res = await request(origin + urlFor(c.op), {
      method: c.op.method,
      headers,
      body: c.body ? JSON.stringify(c.body()) : undefined,
      dispatcher: agent,
    });
    const text = await res.body.text();
    return { status: res.statusCode, text, ms: performance.now() - started };
  }

  // Only what this build implements: a 501 at the probe drops the operation from the mix.
  const active = [];
  for (const c of candidates) {
    const r = await send(c);
    if (r.status === 501) continue;
    if (r.status !== c.op.status)
      throw new Error(`probe of ${c.op.operationId} answered ${r.status}: ${r.text.slice(0, 300)}`);
    active.push(c);
  }
  const byKind = {
    read: active.filter((c) => c.kind === 'read'),
    write: active.filter((c) => c.kind === 'write'),
    public: active.filter((c) => c.kind === 'public'),
  };
  const length = QUICK
    ? `until every operation answered ${QUICK_ANSWERS} times, ${MINUTES} min at most`
    : `${MINUTES} min`;
  console.log(`soak: ${length}, ${CONCURRENCY} in flight, server pid ${proc.pid} at ${base}`);
  for (const k of ['read', 'write', 'public'])
    console.log(`  ${k}: ${byKind[k].map((c) => c.op.operationId).join(', ') || '(none implemented)'}`);

  // ---- run ----
  const t0 = Date.now();
  const minutes = []; // per minute: latencies
  const byKindMinute = { read: [], write: [], public: [] }; // per kind, per minute: latencies
  const rss = []; // {t, kb}
  const unexpected = [];
  const counts = { read: 0, write: 0, public: 0 };
  const answers = new Map(active.map((c) => [c, 0]));
  const covered = () => [...answers.values()].every((n) => n >= QUICK_ANSWERS);
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
    console.log(
      `  t=${String(Math.round(t / 1000)).padStart(4)}s  rss=${(kb / 1024).toFixed(1)} MiB  requests=${counts.read + counts.write + counts.public}  load=${loadavg()[0].toFixed(1)}`,
    );
  }, 10_000);

  async function worker() {
    while (Date.now() - t0 < DURATION && !(QUICK && covered())) {
      const c = pick();
      const minute = Math.floor((Date.now() - t0) / 60_000);
      try {
        const r = await send(c);
        (minutes[minute] ??= []).push(r.ms);
        (byKindMinute[c.kind][minute] ??= []).push(r.ms);
        counts[c.kind]++;
        answers.set(c, answers.get(c) + 1);
        if (r.status !== c.op.status) unexpected.push(`${c.op.operationId} → ${r.status} ${r.text.slice(0, 200)}`);
      } catch (err) {
        unexpected.push(`${c.op.operationId} → ${err.code ?? err.message}`);
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = Date.now() - t0;
  clearInterval(sampler);
  rss.push({ t: Date.now() - t0, kb: readRss() });

  // ---- stop the server gracefully: it must exit 0 ----
  proc.kill('SIGTERM');
  const exitCode = await new Promise((r) => proc.on('exit', (code) => r(code)));

  // ---- report ----
  const cell = (l) => {
    const s = [...(l ?? [])].sort((a, b) => a - b);
    return s.length ? `${pct(s, 50).toFixed(1).padStart(6)} ${pct(s, 99).toFixed(1).padStart(7)}` : '     -       -';
  };
  console.log('\nminute  requests   all p50/p99 ms   read p50/p99    write p50/p99   public p50/p99');
  minutes.forEach((l, i) => {
    console.log(
      `${String(i + 1).padStart(6)}  ${String(l.length).padStart(8)}   ${cell(l)}   ${cell(byKindMinute.read[i])}   ${cell(byKindMinute.write[i])}   ${cell(byKindMinute.public[i])}`,
    );
  });
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const warmSamples = rss.filter((s) => s.t >= WARM && s.t < WARM + 30_000).map((s) => s.kb);
  const baseline = median(warmSamples.length ? warmSamples : rss.slice(0, 1).map((s) => s.kb));
  const final = median(rss.slice(-3).map((s) => s.kb));
  const growth = final / baseline - 1;
  const total = counts.read + counts.write + counts.public;
  console.log(
    `\nrequests: ${total} (${counts.read} reads, ${counts.write} writes, ${counts.public} public), ${(total / (elapsed / 1000)).toFixed(0)}/s in ${(elapsed / 1000).toFixed(1)} s`,
  );
  console.log(
    `rss after warm-up ${(baseline / 1024).toFixed(1)} MiB → end ${(final / 1024).toFixed(1)} MiB: ${(growth * 100).toFixed(1)}% (budget ${RSS_BUDGET * 100}%)`,
  );
  const fewest = Math.min(...answers.values());
  console.log(`every operation answered at least ${fewest} times under load`);
  console.log(`unexpected answers: ${unexpected.length}; server exit code ${exitCode}`);
  for (const u of unexpected.slice(0, 10)) console.log(`  ${u}`);
  const ok = unexpected.length === 0 && (QUICK || growth <= RSS_BUDGET) && exitCode === 0 && total > 0;
  console.log(ok ? 'soak: PASS' : 'soak: FAIL');
  return ok;
}

let ok = false;
try {
  ok = await soak();
} catch (err) {
  console.error(`soak: FAIL: ${err.message}`);
} finally {
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  await agent?.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
