#!/usr/bin/env node
// Loads the built CLI. `--version` is answered here without loading anything else.
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  // A reader that stops early (`wcm threads ls | head`) closes the pipe: stop quietly, as other
  // CLIs do, instead of a stack trace. `wcm serve` keeps running (its store must close cleanly).
  const onStreamError = (err) => {
    if (err?.code !== 'EPIPE') throw err;
    if (argv[0] !== 'serve') process.exit(process.exitCode ?? 0);
  };
  process.stdout.on('error', onStreamError);
  process.stderr.on('error', onStreamError);
  let main;
  try {
    ({ main } = await import('../dist/src/cli/main.js'));
  } catch (err) {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('/dist/')) {
      process.stderr.write('wcm is not built: run `npm install` (or `npm run build`) in the wcm directory first.\n');
      process.exit(1);
    }
    throw err;
  }
  process.exitCode = await main(argv);
}
