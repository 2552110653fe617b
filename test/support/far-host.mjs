// Preloaded into a spawned `wcm` (`NODE_OPTIONS=--import …/far-host.mjs`, see FAR_HOST_ENV in
// test/support/cli.ts): names under `.wcm.test` resolve to 127.0.0.1. A test can then stand up a
// server "on another host" (not loopback by name, so the CLI treats it as remote) while every byte
// still stays on this machine's loopback. `.test` is reserved (RFC 2606) and never resolves otherwise.
import dns from 'node:dns';

const real = dns.lookup;
dns.lookup = function lookup(host, options, callback) {
  if (typeof options === 'function') [options, callback] = [{}, options];
  if (typeof options === 'number') options = { family: options };
  if (typeof host === 'string' && host.toLowerCase().endsWith('.wcm.test')) {
    const a = { address: '127.0.0.1', family: 4 };
    return process.nextTick(() => (options?.all ? callback(null, [a]) : callback(null, a.address, a.family)));
  }
  return real.call(this, host, options, callback);
};
