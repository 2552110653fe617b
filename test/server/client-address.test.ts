// Client addresses over a real socket (issue 47, item 12): behind a proxy named with --trust-proxy the
// client is the one X-Forwarded-For names (rate limits, idempotency scopes, the request log); without
// the setting, X-Forwarded-For is ignored and the peer is the client.
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestLog } from '../../src/server/emulator/log.js';
import { demo, onPort } from '../support/server.js';

let server: Awaited<ReturnType<typeof onPort>> | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

let n = 0;
const opened = (from: string | undefined, key = `client-address-${String(++n).padStart(6, '0')}`) =>
  fetch(`${server!.url}/public/agents/${demo.agent1}/analytics-events/opened`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'idempotency-key': key,
      ...(from ? { 'x-forwarded-for': from } : {}),
    },
    body: '{}',
  });
const log = () => server!.app.services.requestLog as RequestLog;

describe('client addresses', () => {
  it('behind --trust-proxy 127.0.0.1: each forwarded client has its own bucket, scope and log entry', async () => {
    server = await onPort({ rateLimit: 2, trustProxy: ['127.0.0.1', '::1'] });
    expect((await opened('203.0.113.5')).status).toBe(201);
    expect((await opened('203.0.113.5')).status).toBe(201);
    // The visitor's own prefix does not give it a fresh bucket; another visitor has its own.
    expect((await opened('198.51.100.1, 203.0.113.5')).status).toBe(429);
    expect((await opened('203.0.113.6')).status).toBe(201);
    // An idempotency key replays for its own client only: the same key from another visitor runs anew.
    const k = 'shared-key-between-visitors';
    const a = await opened('2001:db8:7:7::1', k);
    const b = await opened('2001:db8:7:8::1', k);
    expect([a.status, b.status]).toEqual([201, 201]);
    const [ea, eb] = [(await a.json()).data, (await b.json()).data];
    expect(ea.id).not.toBe(eb.id);
    // The same /64 is the same client: its key replays, and its bucket is spent.
    const again = await opened('2001:db8:7:7::2', k);
    expect(again.status).toBe(201);
    expect((await again.json()).data.id).toBe(ea.id);
    expect((await opened('2001:db8:7:7:abcd::3')).status).toBe(429);
    const clients = log()
      .query({ limit: 10, all: true })
      .map((e) => e.client);
    expect(clients).toEqual(expect.arrayContaining(['203.0.113.5', '203.0.113.6', '2001:db8:7:7::1']));
  });

  it('without --trust-proxy, X-Forwarded-For is ignored: the peer is the client', async () => {
    server = await onPort({ rateLimit: 1 });
    expect((await opened('203.0.113.5')).status).toBe(201);
    expect((await opened('203.0.113.6')).status).toBe(429);
    expect(log().query({ limit: 1, all: true })[0].client).toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});
