#!/usr/bin/env node
// The MCP Inspector that test/e2e/mcp.test.ts drives as an outside client of `wcm mcp`: the exact
// version below from the npm registry, installed on first use into node_modules/.cache rather than
// as a dev dependency. Every release of it declares `engines: node >=22.7.5`, so as one it made
// every `npm install` on Node 20 warn EBADENGINE. It is installed, and run, on the Node 22 of
// test/support/node22.mjs (its supported runtime); the `wcm mcp` it drives stays on Node 20.
// The package's tarball is checked against the integrity pinned here, as the lockfile checked it.
//   node test/support/inspector.mjs      prints the installed package's directory (installing it if needed)
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { node22 } from './node22.mjs';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const INSPECTOR_NAME = '@modelcontextprotocol/inspector';
export const INSPECTOR_VERSION = '1.0.3';
const INTEGRITY = 'sha512-lDHHqkkFV3bsZynM58rmP78NY2FYXcnBoQav3icfMCU+6lEPX/83pyenYyz8SNByH+V2KNWBg7GKIZ25fou16A==';
const CACHE = path.join(ROOT, 'node_modules/.cache', `modelcontextprotocol-inspector-${INSPECTOR_VERSION}`);
const PKG = path.join(CACHE, 'node_modules', INSPECTOR_NAME);
/** The entry point of the package's `mcp-inspector` bin, relative to its directory. */
export const INSPECTOR_CLI = 'cli/build/cli.js';

/** The installed package's directory, installed from the npm registry (through npm's cache) on first use. */
export async function inspector() {
  if (existsSync(path.join(PKG, INSPECTOR_CLI))) return PKG;
  const node = await node22(); // npm runs on it too, so the engines check passes
  mkdirSync(path.dirname(CACHE), { recursive: true });
  const tmp = mkdtempSync(`${CACHE}.tmp-`);
  try {
    writeFileSync(path.join(tmp, 'package.json'), '{ "private": true }\n');
    const npm = process.env.npm_execpath;
    const [cmd, pre] = npm && npm.endsWith('.js') ? [node, [npm]] : ['npm', []]; /* a bare npm runs on PATH's node */
    await run(
      cmd,
      [
        ...pre,
        'install',
        `${INSPECTOR_NAME}@${INSPECTOR_VERSION}`,
        '--prefix',
        tmp,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts', // nothing in it needs an install script; run none
        '--silent',
      ],
      { maxBuffer: 16 << 20 },
    );
    const lock = JSON.parse(readFileSync(path.join(tmp, 'node_modules/.package-lock.json'), 'utf8'));
    const entry = lock.packages?.[`node_modules/${INSPECTOR_NAME}`];
    if (entry?.version !== INSPECTOR_VERSION || entry?.integrity !== INTEGRITY)
      throw new Error(
        `${INSPECTOR_NAME}: npm installed ${entry?.version} with integrity ${entry?.integrity}, not ${INSPECTOR_VERSION} with ${INTEGRITY}`,
      );
    try {
      renameSync(tmp, CACHE);
    } catch (err) {
      if (!existsSync(path.join(PKG, INSPECTOR_CLI))) throw err; // else another run installed it meanwhile
    }
    return PKG;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  inspector().then(
    (dir) => console.log(dir),
    (err) => {
      console.error(`inspector: ${err.message}`);
      process.exit(1);
    },
  );
}
