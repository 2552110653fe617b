#!/usr/bin/env node
'use strict';
// Loads the built CLI. `--version` is answered here without loading anything else.
// CommonJS on purpose (bin/package.json): a CommonJS entry is read synchronously, so this runs
// before anything has used libuv's thread pool, and `wcm serve` can still size it (below).
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  if (argv[0] === 'serve' && process.env.UV_THREADPOOL_SIZE === undefined && !usesStripe(argv)) {
    // The journal's durable writes run on the thread pool. With one thread, a write queued while
    // the one before it runs is taken up at once, instead of waking a sleeping thread each time
    // (a futex wake, costly on virtual machines): less CPU per durable write in same-moment A/Bs
    // on the benchmark host (README, Durability). The server's other pool work is start-up file I/O, and DNS lookups when it
    // talks to Stripe: a slow lookup would hold writes up, so with Stripe the default stays.
    // An explicit UV_THREADPOOL_SIZE always wins.
    process.env.UV_THREADPOOL_SIZE = '1';
  }
  // A reader that stops early (`wcm threads ls | head`) closes the pipe: stop quietly, as other
  // CLIs do, instead of a stack trace. `wcm serve` keeps running (its store must close cleanly).
  const onStreamError = (err) => {
    if (err?.code !== 'EPIPE') throw err;
    if (argv[0] !== 'serve') process.exit(process.exitCode ?? 0);
  };
  process.stdout.on('error', onStreamError);
  process.stderr.on('error', onStreamError);
  void (async () => {
    let main;
    try {
      ({ main } = await import(pathToFileURL(path.join(__dirname, '..', 'dist', 'src', 'cli', 'main.js')).href));
    } catch (err) {
      if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('/dist/')) {
        // `npm install` does not build (the package has no install script): `npm start` and `npm test` do.
        process.stderr.write(
          'wcm is not built: run `npm run build` in the wcm directory first (`npm start` builds by itself when needed).\n',
        );
        process.exit(1);
      }
      throw err;
    }
    process.exitCode = await main(argv);
  })();
}

/** Whether `wcm serve` will use Stripe, as choosePaymentProvider (src/server/extend.ts) decides. */
function usesStripe(args) {
  let kind;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--payments') kind = args[i + 1];
    else if (args[i].startsWith('--payments=')) kind = args[i].slice('--payments='.length);
  }
  return kind === 'stripe' || (kind === undefined && Boolean(process.env.STRIPE_SECRET_KEY));
}
