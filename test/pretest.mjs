#!/usr/bin/env node
// `npm test`'s first step: the build, the type-check of test/ and both lint checks, in three lanes
// side by side rather than one after the other (each is one busy core: tsc, ESLint, Prettier). The
// type-check follows the build in its lane: it checks test/ against the build's .d.ts files
// (tsconfig.test.json references tsconfig.json), so it needs them and adds no second check of src/.
// Each step's output is printed whole when it ends, so they never interleave; the step fails when any
// of them does, naming which.
import { spawn } from 'node:child_process';

const lanes = [['build', 'typecheck'], ['lint:code'], ['lint:format']];
const npm = process.env.npm_execpath;
const run = (script) =>
  new Promise((resolve) => {
    // Through npm, so each step is exactly `npm run <script>` as package.json defines it.
    const [cmd, args] = npm
      ? [process.execPath, [npm, 'run', '--silent', script]]
      : ['npm', ['run', '--silent', script]];
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', (err) => resolve({ script, code: 1, text: `${err.message}\n` }));
    child.on('close', (code) => resolve({ script, code: code ?? 1, text: Buffer.concat(out).toString() }));
  });

/** A lane's scripts one after the other, up to the first that fails. */
async function runLane(scripts) {
  for (const script of scripts) {
    const r = await run(script);
    process.stdout.write(r.text);
    if (r.code !== 0) return r;
  }
  return { code: 0 };
}

const results = await Promise.all(lanes.map(runLane));
const failed = results.filter((r) => r.code !== 0).map((r) => r.script);
if (failed.length) {
  console.error(
    `\nnpm test stopped before the tests: \`npm run ${failed.join('`, `npm run ')}\` failed (output above).`,
  );
  process.exit(1);
}
