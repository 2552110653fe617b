import { afterEach, describe, expect, it } from 'vitest';
import { checkTrustOptions, makeTrust } from '../../src/server/trust/config.js';
import { demo, openedUrl, payUrl, publicApp, type PublicApp } from './payments/harness.js';

let s: PublicApp;
afterEach(async () => {
  await s?.close();
});

let n = 0;
const key = () => `rate-test-key-${String(++n).padStart(6, '0')}`;

/**
 * On PostgreSQL the store's time is the database's, which runs on while a test sends 60 requests
 * (refilling a 60-a-minute bucket): the tests that count to the millisecond run on the JSON file,
 * whose clock is the test's; the low limits below (3, 2, 1 a minute) hold on both.
 */
const exactClock = process.env.WCM_TEST_STORE !== 'postgres';

describe('rate limits on public routes (token bucket per client address and route)', () => {
  it.runIf(exactClock)(
    '60 a minute by default: RateLimit-Remaining counts down 59…0, the 61st is 429 with Retry-After',
    async () => {
      s = await publicApp({ rateLimit: 60 });
      const remaining: number[] = [];
      for (let i = 0; i < 60; i++) {
        const res = await s.request({ url: openedUrl(demo.agent1), key: key(), json: {} });
        expect(res.status).toBe(201);
        expect(res.headers['RateLimit-Limit']).toBe('60');
        remaining.push(Number(res.headers['RateLimit-Remaining']));
      }
      expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
      const over = await s.request({ url: openedUrl(demo.agent1), key: key(), json: {} });
      expect(over.status).toBe(429);
      expect(over.json.code).toBe('rate_limited');
      expect(over.headers['Retry-After']).toBe('1');
      expect(over.headers['RateLimit-Limit']).toBe('60');
      expect(over.headers['RateLimit-Remaining']).toBe('0');
      expect(over.headers['RateLimit-Reset']).toBe('60');
      expect(await s.db.read((tx) => tx.count('analytics_events'))).toBe(60);
    },
  );

  it.runIf(exactClock)('the bucket refills at the limit per minute on the injected clock', async () => {
    s = await publicApp({ rateLimit: 60 });
    for (let i = 0; i < 60; i++) await s.request({ url: openedUrl(demo.agent1), key: key(), json: {} });
    s.clock.advance(999);
    expect((await s.request({ url: openedUrl(demo.agent1), key: key(), json: {} })).status).toBe(429);
    s.clock.advance(1);
    const one = await s.request({ url: openedUrl(demo.agent1), key: key(), json: {} });
    expect(one.status).toBe(201);
    expect(one.headers['RateLimit-Remaining']).toBe('0');
    s.clock.advance(60_000);
    const full = await s.request({ url: openedUrl(demo.agent1), key: key(), json: {} });
    expect(full.headers['RateLimit-Remaining']).toBe('59');
    expect(full.headers['RateLimit-Reset']).toBe('1');
  });

  it('`--rate-limit N` sets the limit; Retry-After says when one request is allowed again', async () => {
    s = await publicApp({ rateLimit: 3 });
    const seen = [];
    for (let i = 0; i < 4; i++) {
      const r = await s.request({ url: payUrl(demo.offerFixedUsd), key: key(), json: {} });
      seen.push([r.status, r.headers['RateLimit-Remaining']]);
    }
    expect(seen).toEqual([
      [201, '2'],
      [201, '1'],
      [201, '0'],
      [429, '0'],
    ]);
    const over = await s.request({ url: payUrl(demo.offerFixedUsd), key: key(), json: {} });
    // 3 a minute: one token every 20 s.
    expect(over.headers['Retry-After']).toBe('20');
    expect(over.headers['RateLimit-Reset']).toBe('60');
  });

  it('each client address and each route has its own bucket', async () => {
    s = await publicApp({ rateLimit: 2 });
    for (let i = 0; i < 2; i++)
      await s.request({ url: openedUrl(demo.agent1), key: key(), json: {}, remoteAddress: '198.51.100.1' });
    expect(
      (await s.request({ url: openedUrl(demo.agent1), key: key(), json: {}, remoteAddress: '198.51.100.1' })).status,
    ).toBe(429);
    // Another agent is the same route: still limited.
    expect(
      (await s.request({ url: openedUrl(demo.agent3), key: key(), json: {}, remoteAddress: '198.51.100.1' })).status,
    ).toBe(429);
    // Another address, or another route, is not.
    expect(
      (await s.request({ url: openedUrl(demo.agent1), key: key(), json: {}, remoteAddress: '198.51.100.2' })).status,
    ).toBe(201);
    expect(
      (await s.request({ url: payUrl(demo.offerFixedUsd), key: key(), json: {}, remoteAddress: '198.51.100.1' }))
        .status,
    ).toBe(201);
    // X-Forwarded-For is not trusted: a caller cannot pick a fresh address.
    expect(
      (
        await s.request({
          url: openedUrl(demo.agent1),
          key: key(),
          json: {},
          remoteAddress: '198.51.100.1',
          headers: { 'x-forwarded-for': '203.0.113.9' },
        })
      ).status,
    ).toBe(429);
  });

  // Issue 47, item 12: a host rotates through its IPv6 /64 at will, and behind a proxy every visitor
  // was one address.
  const opened = (remoteAddress: string, headers: Record<string, string> = {}) =>
    s.request({ url: openedUrl(demo.agent1), key: key(), json: {}, remoteAddress, headers }).then((r) => r.status);

  it('IPv6 clients are bucketed by their /64, and an IPv4-mapped address is its IPv4 one', async () => {
    s = await publicApp({ rateLimit: 2 });
    expect(await opened('2001:db8:1:2::1')).toBe(201);
    expect(await opened('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(201);
    // A third address of the same /64, however written: the bucket is spent.
    expect(await opened('2001:0DB8:0001:0002:0:0:0:9')).toBe(429);
    expect(await opened('2001:db8:1:2:a:b:1.2.3.4')).toBe(429);
    // The next /64 is another client.
    expect(await opened('2001:db8:1:3::1')).toBe(201);
    // ::ffff:198.51.100.7 (a dual-stack socket's IPv4 peer) and 198.51.100.7 are one client.
    expect(await opened('::ffff:198.51.100.7')).toBe(201);
    expect(await opened('198.51.100.7')).toBe(201);
    expect(await opened('::ffff:198.51.100.7')).toBe(429);
  });

  it('behind a trusted proxy (--trust-proxy), the client is the rightmost X-Forwarded-For hop that is not a proxy', async () => {
    s = await publicApp({ rateLimit: 1 });
    s.app.trust = makeTrust('http://localhost', { trustProxy: ['10.0.0.0/8', '2001:db8:ffff::1'] });
    const xff = (v: string) => ({ 'x-forwarded-for': v });
    // Two visitors behind one proxy: a bucket each.
    expect(await opened('10.0.0.1', xff('203.0.113.5'))).toBe(201);
    expect(await opened('10.0.0.1', xff('203.0.113.6'))).toBe(201);
    expect(await opened('10.0.0.1', xff('203.0.113.5'))).toBe(429);
    // A visitor prepending addresses of its own does not get a fresh bucket: the proxy appended the
    // real one, and trusted hops (a second proxy in the chain) are skipped.
    expect(await opened('10.0.0.1', xff('198.51.100.99, 203.0.113.5'))).toBe(429);
    expect(await opened('::ffff:10.0.0.2', xff('198.51.100.99, 203.0.113.5, 10.9.9.9'))).toBe(429);
    expect(await opened('2001:db8:ffff::1', xff('203.0.113.5'))).toBe(429);
    // A peer that is not a trusted proxy is the client, whatever it forwards.
    expect(await opened('192.0.2.50', xff('203.0.113.7'))).toBe(201);
    expect(await opened('192.0.2.50', xff('203.0.113.8'))).toBe(429);
  });

  it('--trust-proxy takes addresses and CIDR ranges only', () => {
    for (const bad of ['proxy.example', '10.0.0.0/33', '10.0.0.1/x', '::1/129', ''])
      expect(() => checkTrustOptions({ trustProxy: [bad] }), bad).toThrow(/`--trust-proxy` must be an IP address/);
    expect(
      checkTrustOptions({ trustProxy: ['127.0.0.1', '10.0.0.0/8', 'fd00::/8', '::ffff:10.1.2.3'] }),
    ).toBeUndefined();
  });

  it('every public response carries the headers: errors and replays included', async () => {
    s = await publicApp({ rateLimit: 10 });
    const cases = [
      await s.request({ url: payUrl(demo.offerFixedUsd), key: null, json: {} }),
      await s.request({ url: payUrl(demo.offerFixedUsd), key: 'replayed-key-001', json: {} }),
      await s.request({ url: payUrl(demo.offerFixedUsd), key: 'replayed-key-001', json: {} }),
      await s.request({ url: payUrl(demo.offerInactive), key: key(), json: {} }),
      await s.request({ url: payUrl(demo.offerFixedUsd), key: key(), json: { quantity: 0 } }),
    ];
    expect(cases.map((c) => c.status)).toEqual([400, 201, 201, 404, 422]);
    expect(cases.map((c) => c.headers['RateLimit-Remaining'])).toEqual(['9', '8', '7', '6', '5']);
    for (const c of cases) {
      expect(c.headers['RateLimit-Limit']).toBe('10');
      expect(Number(c.headers['RateLimit-Reset'])).toBeGreaterThan(0);
    }
  });

  it('token routes are not rate limited by this guard', async () => {
    s = await publicApp({ rateLimit: 1 });
    for (let i = 0; i < 3; i++) {
      const res = await s.request({
        method: 'GET',
        url: `/v1/workspaces/${demo.ws1}/lists`,
        headers: { authorization: `Bearer ${demo.owner}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers['RateLimit-Limit']).toBeUndefined();
    }
  });
});

describe('buckets in the store', () => {
  it('idle (refilled) buckets are pruned once a minute, so a spray of addresses cannot grow the store without bound; no bucket holds an address', async () => {
    const path = await import('node:path');
    const { RateLimiter } = await import('../../src/server/ratelimit.js');
    const { operations } = await import('../../src/contract/operations.js');
    const { TestClock, tempDir } = await import('../support/server.js');
    const { JsonEngine } = await import('../../src/store/json/engine.js');
    const { dir, cleanup } = tempDir();
    const clock = new TestClock();
    const db = await JsonEngine.open(path.join(dir, 'store.json'), { clock: () => clock.now().getTime() });
    try {
      const limiter = new RateLimiter(60, db);
      const op = operations.recordAgentChatOpened as never;
      const req = (addr: string) => ({ remoteAddress: addr }) as never;
      const buckets = () => db.read(async (tx) => tx.count('rate_limit_buckets'));
      for (let i = 0; i < 200; i++) await limiter.before(op, req(`10.0.${i >> 8}.${i & 255}`));
      expect(await buckets()).toBe(200);
      // Within the minute nobody is full again: a busy client keeps its bucket (and its count).
      clock.advance(59_999);
      await limiter.before(op, req('10.9.9.9'));
      expect(await buckets()).toBe(201);
      clock.advance(1);
      await limiter.before(op, req('10.9.9.10'));
      // The pruning this request started has run by the next read (writes run in order).
      expect(await buckets()).toBe(2);
      const ids = await db.read(
        async (tx) => (await tx.page('rate_limit_buckets', 'bucketsByAt', { partition: '*', limit: 10 })).items,
      );
      expect(ids.map((b) => b.id.replace(/^recordAgentChatOpened\|[0-9a-f]{32}$/, 'hashed'))).toEqual([
        'hashed',
        'hashed',
      ]);
      for (const b of ids) expect(b.id).not.toContain('10.9.9');
    } finally {
      await db.close();
      cleanup();
    }
  });
});

describe.runIf(exactClock)('buckets on the JSON engine', () => {
  it('are kept in memory only: a request that writes nothing but its bucket appends nothing to the journal, and a restart starts every bucket full', async () => {
    const { readFileSync } = await import('node:fs');
    s = await publicApp({ rateLimit: 3 });
    const journal = () => readFileSync(s.store.journalFile);
    const before = journal();
    // Refused before any write of its own (no idempotency key; an inactive offer): each spends a token.
    const missing = await s.request({ url: payUrl(demo.offerFixedUsd), key: null, json: {} });
    const inactive = await s.request({ url: payUrl(demo.offerInactive), key: key(), json: {} });
    expect([missing.status, inactive.status]).toEqual([400, 404]);
    expect(inactive.headers['RateLimit-Remaining']).toBe('1');
    expect(journal().equals(before)).toBe(true);
    // A request that writes more than its bucket is journaled, as one line without the bucket.
    expect((await s.request({ url: payUrl(demo.offerFixedUsd), key: key(), json: {} })).status).toBe(201);
    const added = journal().subarray(before.length).toString('utf8').replace(/\0+$/, '');
    expect(added.split('\n').filter(Boolean)).toHaveLength(1);
    expect(added).not.toContain('rate_limit_buckets');
    expect((await s.request({ url: payUrl(demo.offerFixedUsd), key: key(), json: {} })).status).toBe(429);
    await s.restart();
    expect(await s.db.read((tx) => tx.count('rate_limit_buckets'))).toBe(0);
    const again = await s.request({ url: payUrl(demo.offerFixedUsd), key: key(), json: {} });
    expect(again.status).toBe(201);
    expect(again.headers['RateLimit-Remaining']).toBe('2');
  });
});

describe.runIf(process.env.WCM_TEST_STORE === 'postgres')('buckets on PostgreSQL', () => {
  it('two processes on one database share each bucket, timed by the database clock', async () => {
    const { RateLimiter } = await import('../../src/server/ratelimit.js');
    const { operations } = await import('../../src/contract/operations.js');
    const { PostgresEngine } = await import('../../src/store/postgres/engine.js');
    const { freshSchema } = await import('../support/postgres.js');
    const { url } = await freshSchema();
    const [a, b] = [await PostgresEngine.open(url), await PostgresEngine.open(url)];
    try {
      const op = operations.recordAgentChatOpened as never;
      const req = { remoteAddress: '192.0.2.44' } as never;
      const [la, lb] = [new RateLimiter(3, a), new RateLimiter(3, b)];
      const before = await a.read((tx) => tx.now());
      expect((await la.before(op, req)).headers['RateLimit-Remaining']).toBe('2');
      expect((await lb.before(op, req)).headers['RateLimit-Remaining']).toBe('1');
      expect((await la.before(op, req)).headers['RateLimit-Remaining']).toBe('0');
      // The other process's allowance is the same bucket: spent.
      await expect(lb.before(op, req)).rejects.toMatchObject({ code: 'rate_limited' });
      const after = await b.read((tx) => tx.now());
      const [bucket] = await a.read(
        async (tx) => (await tx.page('rate_limit_buckets', 'bucketsByAt', { partition: '*', limit: 10 })).items,
      );
      // Stamped by the database's clock, whatever this process's says.
      expect(bucket.at).toBeGreaterThanOrEqual(before);
      expect(bucket.at).toBeLessThanOrEqual(after);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
