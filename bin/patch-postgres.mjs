#!/usr/bin/env node
// Run by `npm install` (postinstall). postgres.js 3.4.x buffers a small write with setImmediate and
// then calls socket.write, but a connection whose socket has closed sets it to null. A transaction
// that loses its connection (the database restarted, a pooler dropped it) still sends its ROLLBACK on
// it, so the write lands on null and throws from the immediate: an uncaught TypeError that ends the
// whole server. The guard below settles the write instead, rejecting the queries waiting on that
// connection with CONNECTION_CLOSED, so the request answers 503 and the pool reconnects.
// Idempotent; a postgres.js without the unguarded write is left as it is.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const UNGUARDED = `  function nextWrite(fn) {
    const x = socket.write(chunk, fn)`;
const GUARDED = `  function nextWrite(fn) {
    if (socket === null) { // guarded by wcm (bin/patch-postgres.mjs)
      chunk = nextWriteTimer = null
      error(Errors.connection('CONNECTION_CLOSED', options))
      return false
    }
    const x = socket.write(chunk, fn)`;

// Where Node resolves `postgres` from here (its package.json is not exported, so found by path).
const root = (createRequire(import.meta.url).resolve.paths('postgres') ?? [])
  .map((dir) => path.join(dir, 'postgres'))
  .find((dir) => existsSync(path.join(dir, 'package.json')));
if (!root) process.exit(0); // not installed yet (a partial install): nothing to guard
for (const dir of ['src', 'cjs/src', 'cf/src']) {
  const file = path.join(root, dir, 'connection.js');
  if (!existsSync(file)) continue;
  const text = readFileSync(file, 'utf8');
  if (text.includes(GUARDED) || !text.includes(UNGUARDED)) continue;
  writeFileSync(file, text.replace(UNGUARDED, GUARDED));
}
