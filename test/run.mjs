#!/usr/bin/env node
// Runs the whole suite with vitest and ends with one plain line, "Tests: N passed, N failed",
// which CI reads; the exit code is vitest's.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(path.join(tmpdir(), 'wcm-vitest-'));
const report = path.join(dir, 'report.json');
const vitest = path.join(root, 'node_modules/vitest/vitest.mjs');
const args = [
  vitest,
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${report}`,
  ...process.argv.slice(2),
];
// The suite, and every `node` a test spawns, run on the Node that runs npm: the project's runtime
// (Node 20 here), whatever else is on PATH. The Node 22 the MCP conformance suite needs is fetched by
// that test alone (test/support/node22.mjs) and never put on PATH.
const node = process.env.npm_node_execpath ?? process.execPath;
const shim = path.join(dir, 'bin');
mkdirSync(shim);
symlinkSync(node, path.join(shim, 'node'));
const env = { ...process.env, PATH: `${shim}${path.delimiter}${process.env.PATH ?? ''}` };
const r = spawnSync(node, args, { cwd: root, stdio: 'inherit', env });

let code = r.status ?? 1;
try {
  const j = JSON.parse(readFileSync(report, 'utf8'));
  const skipped = (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
  console.log(`Tests: ${j.numPassedTests} passed, ${j.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`);
  if (j.numTotalTests === 0) code = code || 1;
} catch {
  console.log('Tests: 0 passed, 1 failed');
  code = code || 1;
}
rmSync(dir, { recursive: true, force: true });
process.exit(code);
