#!/usr/bin/env node
// Measures thread list requests over a big store, in-process through App.handle (no sockets), so
// the number is the server's own cost: `npm run build && node test/support/bench-threads.mjs [N]`.
// Prints the time for 200 filtered page requests (every view × channel, first pages and pages
// reached by cursor) and, separately, for `q` searches, which may scan.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateThreads, DEMO_WS1 } from './generate-threads.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { Store } = await import(path.join(root, 'dist/src/store/json/store.js'));
const { seedStore } = await import(path.join(root, 'dist/src/store/fixtures/seed.js'));
const { App } = await import(path.join(root, 'dist/src/server/app.js'));

const N = Number(process.argv[2] ?? 100_000);
const TOKEN = 'wcm_pat_demoOwnerAllAbilities0123456789abcdefghi';
const dir = mkdtempSync(path.join(tmpdir(), 'wcm-bench-threads-'));
try {
  const file = path.join(dir, 'threads.json');
  writeFileSync(file, JSON.stringify(generateThreads({ count: N, starredShare: 0.002 })));
  const store = await Store.open(path.join(dir, 'store.json'));
  let t = performance.now();
  // One file at a time: the threads refer to demo.json's workspace, which must be in the store first.
  await seedStore(store, [path.join(root, 'fixtures/demo.json')]);
  await seedStore(store, [file]);
  console.log(`seeded ${N} threads in ${Math.round(performance.now() - t)} ms`);
  const app = new App({ store });
  const get = async (query) => {
    const res = await app.handle({
      method: 'GET',
      url: `/v1/workspaces/${DEMO_WS1}/threads?${query}`,
      headers: { host: 'localhost', authorization: `Bearer ${TOKEN}` },
    });
    if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.body}`);
    return JSON.parse(res.body);
  };
  const views = ['inbox', 'unread', 'starred', 'closed'];
  const channels = [null, 'web_chat', 'email', 'whatsapp', 'form'];
  const queries = [];
  for (const v of views) for (const c of channels) queries.push(`view=${v}&limit=100${c ? `&channel=${c}` : ''}`);
  // Warm up: JIT, and the first read of each index partition after the bulk import (it merges
  // the import into the sorted lists once).
  for (const q of queries) await get(q);

  // 200 requests: each of the 20 filters, its first page then 9 pages by cursor. Three rounds,
  // because the machine is shared: the best round is the least disturbed.
  for (let round = 1; round <= 3; round++) {
    let requests = 0;
    let items = 0;
    t = performance.now();
    for (const q of queries) {
      let cursor = null;
      for (let p = 0; p < 10; p++) {
        const body = await get(cursor ? `${q}&cursor=${cursor}` : q);
        requests++;
        items += body.data.length;
        cursor = body.meta.next_cursor;
        if (!cursor) break;
      }
    }
    const ms = performance.now() - t;
    console.log(
      `round ${round}: filtered pages: ${requests} requests, ${items} items, ${Math.round(ms)} ms total, ${(ms / requests).toFixed(2)} ms per request`,
    );
  }

  // A sparse view: 0.2 % of threads are starred. Scanning the workspace to fill a page of them
  // reads every thread; a pre-filtered partition reads one page.
  t = performance.now();
  for (let r = 0; r < 200; r++) await get(`view=starred&limit=25`);
  const sms = performance.now() - t;
  console.log(
    `sparse view (starred, 0.2 %): 200 requests, ${Math.round(sms)} ms total, ${(sms / 200).toFixed(2)} ms per request`,
  );

  const searches = ['maya', 'opening hours', 'charged twice', 'lena.costa.9', 'no-such-text-anywhere'];
  t = performance.now();
  let n = 0;
  for (let r = 0; r < 40; r++)
    for (const s of searches) {
      await get(`view=inbox&limit=100&q=${encodeURIComponent(s)}`);
      n++;
    }
  const qms = performance.now() - t;
  console.log(`q searches: ${n} requests, ${Math.round(qms)} ms total, ${(qms / n).toFixed(2)} ms per request`);
  console.log(
    `heap used ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB, rss ${Math.round(process.memoryUsage().rss / 1e6)} MB`,
  );
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
