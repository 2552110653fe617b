#!/usr/bin/env node
// The npm-start row of test/bench/README.md: wall time from the command to the first answered
// GET /healthz, for `node bin/wcm.js serve` and for `npm start`, each on a fresh data file with the
// demo seed, the two alternating. After `npm run build`:
//   node test/bench/npm-start.mjs [PAIRS=5] [PORT=4391]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const pairs = Number(process.argv[2] ?? 5);
const port = Number(process.argv[3] ?? 4391);
const answers = () =>
  fetch(`http://127.0.0.1:${port}/healthz`).then(
    (r) => r.ok,
    () => false,
  );

async function once(kind) {
  if (await answers()) throw new Error(`port ${port} is busy`);
  const dir = mkdtempSync(path.join(tmpdir(), 'wcm-npm-start-'));
  const data = path.join(dir, 'store.json');
  const [cmd, args] =
    kind === 'npm'
      ? ['npm', ['start', '--silent', '--', '--port', String(port), '--data', data]]
      : [
          process.execPath,
          ['bin/wcm.js', 'serve', '--seed', 'fixtures/demo.json', '--port', String(port), '--data', data],
        ];
  const started = performance.now();
  // Its own process group, so npm, its shell and the server stop together.
  const child = spawn(cmd, args, {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, WCM_CONFIG_DIR: path.join(dir, 'cfg') },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  while (!(await answers())) await new Promise((r) => setTimeout(r, 10));
  const ms = performance.now() - started;
  process.kill(-child.pid, 'SIGTERM');
  await exited;
  rmSync(dir, { recursive: true, force: true });
  if (/building/.test(out)) throw new Error('npm start built: run `npm run build` first');
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times = { node: [], npm: [] };
for (let i = 0; i < pairs; i++) for (const kind of ['node', 'npm']) times[kind].push(await once(kind));
const fmt = (xs) =>
  `${(median(xs) / 1000).toFixed(2)} s (${(Math.min(...xs) / 1000).toFixed(2)}–${(Math.max(...xs) / 1000).toFixed(2)})`;
console.log(`node bin/wcm.js serve: ${fmt(times.node)}`);
console.log(`npm start:             ${fmt(times.npm)}`);
console.log(`ratio: ${(median(times.npm) / median(times.node)).toFixed(2)}x (target: at most 3x)`);
