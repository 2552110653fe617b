// test/support/delay-proxy.ts for the benchmark's .mjs harness (the tests' copy is TypeScript, not
// built to dist/): a TCP proxy in front of `target` that holds every chunk, each way, for
// `minMs`–`maxMs` before passing it on, chunks in order.
import { connect, createServer } from 'node:net';

export async function delayProxy(target, minMs, maxMs = minMs) {
  const sockets = new Set();
  const relay = (from, to) => {
    let last = 0;
    from.on('data', (chunk) => {
      const at = Math.max(last, Date.now() + minMs + Math.random() * (maxMs - minMs));
      last = at;
      setTimeout(() => to.writable && to.write(chunk), at - Date.now());
    });
    from.on('end', () => setTimeout(() => to.end(), Math.max(0, last - Date.now())));
    from.on('error', () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      s.setNoDelay(true);
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    relay(client, upstream);
    relay(upstream, client);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: server.address().port,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
