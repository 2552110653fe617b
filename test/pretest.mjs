#!/usr/bin/env node
// `npm test`'s first step: the build and both lint checks, side by side rather than one after the
// other (each is one busy core: tsc, ESLint, Prettier). Each one's output is printed whole when it
// ends, so the three never interleave; the step fails when any of them does, naming which.
import { spawn } from 'node:child_process';

const steps = ['build', 'lint:code', 'lint:format'];
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

const results = await Promise.all(steps.map((s) => run(s).then((r) => (process.stdout.write(r.text), r))));
const failed = results.filter((r) => r.code !== 0).map((r) => r.script);
if (failed.length) {
  console.error(
    `\nnpm test stopped before the tests: \`npm run ${failed.join('`, `npm run ')}\` failed (output above).`,
  );
  process.exit(1);
}
