#!/usr/bin/env node
// The paging reference: the smallest Node script a user would write instead of the CLI. It follows
// next_cursor with the built-in fetch and writes the items as one JSON array on stdout.
//   node test/bench/fetch-loop.mjs URL TOKEN   (URL without cursor; limit is in it)
const [url, token] = process.argv.slice(2);
const write = (s) =>
  new Promise((resolve) => (process.stdout.write(s) ? resolve() : process.stdout.once('drain', resolve)));
let cursor = null;
let first = true;
await write('[');
do {
  const res = await fetch(cursor ? `${url}&cursor=${encodeURIComponent(cursor)}` : url, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (!res.ok) {
    process.stderr.write(`HTTP ${res.status}: ${await res.text()}\n`);
    process.exit(1);
  }
  const body = await res.json();
  if (body.data.length) {
    await write((first ? '' : ',') + JSON.stringify(body.data).slice(1, -1));
    first = false;
  }
  cursor = body.meta.next_cursor;
} while (cursor);
await write(']\n');
