/*
 * The delay proxy the PostgreSQL tests put in front of the database must keep each connection's
 * bytes in order, however busy the event loop: reordered protocol bytes left the driver waiting
 * for a reply it could not parse, and the test hung instead of measuring anything.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { delayProxy, type DelayProxy } from './delay-proxy.js';

const closing: Array<Server | Socket | DelayProxy> = [];
afterEach(async () => {
  for (const x of closing.splice(0).reverse()) {
    if ('cut' in x) await x.close();
    else if ('destroy' in x) x.destroy();
    else await new Promise((r) => x.close(r));
  }
});
const listen = async (server: Server) => {
  closing.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
};
const dial = (port: number) =>
  new Promise<Socket>((resolve) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.setNoDelay(true);
    closing.push(s);
  });

it('keeps every connection in order while the event loop is busy between its chunks', async () => {
  // What arrives, per connection through the proxy.
  const received: string[] = [];
  const target = createServer((s) => {
    const n = received.push('') - 1;
    s.on('data', (d) => (received[n] += d.toString()));
  });
  const proxy = await delayProxy({ host: '127.0.0.1', port: await listen(target) }, 1, 10);
  closing.push(proxy);
  // A listener that holds the loop 2 ms on every chunk, so the clock moves on between two chunks
  // the proxy reads in one turn of the loop (the machine under load, as in the full suite).
  const busy = await dial(
    await listen(
      createServer((s) =>
        s.on('data', () => {
          const until = Date.now() + 2;
          while (Date.now() < until);
        }),
      ),
    ),
  );
  const senders = await Promise.all(Array.from({ length: 4 }, () => dial(proxy.port)));
  const rounds = 300;
  for (let i = 0; i < rounds; i++) {
    busy.write('x');
    for (const s of senders) s.write(`${i};`);
    await new Promise((r) => setTimeout(r, 1));
  }
  const expected = Array.from({ length: rounds }, (_, i) => `${i};`).join('');
  await expect.poll(() => received.filter((r) => r.length === expected.length).length, { timeout: 5000 }).toBe(4);
  for (const r of received) expect(r).toBe(expected);
});
