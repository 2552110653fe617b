#!/usr/bin/env node
// The load generator, run as its own process so it never competes with the server's event loop:
//   node test/bench/load.mjs '{"url":…,"method":"GET","headers":{},"body":…,"connections":10,"duration":10}'
// Prints one JSON line: requests/s counted from 2xx answers, latency percentiles (ms), errors.
import autocannon from 'autocannon';

const spec = JSON.parse(process.argv[2]);
// `rotate` (the pg-rss row): every request another read path, and with `users`, another user's
// token (auth-data.mjs), walking them in a scattered order; with `token` and `ws`, that one token.
let requests;
if (spec.rotate) {
  const { benchUser, READ_PATHS } = await import('./auth-data.mjs');
  const { users, token, ws } = spec.rotate;
  const base = new URL(spec.url).pathname.replace(/\/$/, '');
  let n = 0;
  requests = [
    {
      setupRequest: (req) => {
        n++;
        const u = users ? benchUser((n * 7919) % users) : { ws, tokens: [token] };
        const paths = READ_PATHS(u.ws);
        req.path = base + paths[n % paths.length];
        req.headers = { ...req.headers, authorization: `Bearer ${u.tokens[n % u.tokens.length]}` };
        return req;
      },
    },
  ];
}
const result = await autocannon({
  requests,
  url: spec.url,
  method: spec.method ?? 'GET',
  headers: spec.headers ?? {},
  body: spec.body,
  connections: spec.connections ?? 10,
  duration: spec.duration ?? 10,
  // json-server takes seconds per request on 100,000 records: never count a slow answer as an error.
  timeout: spec.timeout ?? 120,
});
const ok = result['2xx'];
process.stdout.write(
  JSON.stringify({
    durationS: result.duration,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodeStats,
    rps: ok / result.duration,
    latency: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.average,
    },
    bytesPerResponse: result.latency.totalCount ? Math.round(result.throughput.total / result.latency.totalCount) : 0,
  }) + '\n',
);
