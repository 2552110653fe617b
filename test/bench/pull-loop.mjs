#!/usr/bin/env node
// The reference for `wcm pull`: the same GETs, in the same order and at the same concurrency, with
// the built-in fetch and nothing else (no retries, no checks, no state file), each record written
// to OUT as a line of JSON.
//   node test/bench/pull-loop.mjs BASE_URL TOKEN WORKSPACE CONCURRENCY OUT
import { createWriteStream } from 'node:fs';

const [base, token, ws, concurrencyArg, outFile] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const out = createWriteStream(outFile);
const write = (s) => new Promise((resolve) => (out.write(s) ? resolve() : out.once('drain', resolve)));
const headers = { authorization: `Bearer ${token}` };
let requests = 0;

async function get(path) {
  requests++;
  const res = await fetch(base + path, { headers });
  if (!res.ok) {
    process.stderr.write(`HTTP ${res.status} for ${path}: ${await res.text()}\n`);
    process.exit(1);
  }
  return res.json();
}

async function pool(items, fn) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]);
      }
    }),
  );
  return results;
}

/** Every page of a list (100 a page); `each` gets a page's items and returns the records to write. */
async function list(path, each = async (items) => items) {
  let cursor = null;
  const all = [];
  do {
    const body = await get(
      `${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    const records = await each(body.data);
    if (records.length) await write(records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    all.push(...body.data);
    cursor = body.meta.next_cursor;
  } while (cursor);
  return all;
}
const getEach = (path) => (items) => pool(items, async (x) => (await get(`${path}/${x.id}`)).data);

const w = `/workspaces/${ws}`;
await get('/openapi.json');
await get('/me');
await list(`${w}/lists`, getEach(`${w}/lists`));
await list(`${w}/forms`, getEach(`${w}/forms`));
await list(`${w}/pages`, getEach(`${w}/pages`));
const lists = await list(`${w}/knowledge-lists`);
for (const l of lists)
  await list(`${w}/knowledge-lists/${l.id}/articles`, getEach(`${w}/knowledge-lists/${l.id}/articles`));
const seen = new Set();
for (const view of ['inbox', 'closed', 'starred', 'unread'])
  await list(`${w}/threads?view=${view}`, (items) => {
    const fresh = items.filter((t) => !seen.has(t.id));
    for (const t of fresh) seen.add(t.id);
    return getEach(`${w}/threads`)(fresh);
  });
for (const p of ['bookings', 'voice-interactions', 'offers', 'agents']) await list(`${w}/${p}`);
await new Promise((resolve) => out.end(resolve));
process.stderr.write(`${requests} requests, ${seen.size} threads\n`);
