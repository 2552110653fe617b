import { afterEach, describe, expect, it } from 'vitest';
import { demo, openedUrl, payUrl, publicApp, type PublicApp } from './payments/harness.js';

let s: PublicApp;
afterEach(async () => {
  await s?.close();
});

let n = 0;
const key = () => `rate-test-key-${String(++n).padStart(6, '0')}`;

describe('rate limits on public routes (token bucket per client address and route)', () => {
  it('60 a minute by default: RateLimit-Remaining counts down 59…0, the 61st is 429 with Retry-After', async () => {
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
    expect(await s.store.records.size('analytics_events')).toBe(60);
  });

  it('the bucket refills at the limit per minute on the injected clock', async () => {
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

describe('RateLimiter memory', () => {
  it('idle (refilled) buckets are dropped once 10 000 clients are tracked, so a spray of addresses cannot grow memory without bound', async () => {
    const { MemoryBuckets, RateLimiter } = await import('../../src/server/ratelimit.js');
    const { operations } = await import('../../src/contract/operations.js');
    const { TestClock } = await import('../support/server.js');
    const clock = new TestClock();
    const buckets = new MemoryBuckets();
    const limiter = new RateLimiter(60, clock, buckets);
    const op = operations.recordAgentChatOpened as never;
    const req = (addr: string) => ({ remoteAddress: addr }) as never;
    for (let i = 0; i < 10_000; i++) await limiter.before(op, req(`10.0.${i >> 8}.${i & 255}`));
    expect(buckets.size).toBe(10_000);
    // Within the minute nobody is full again: a busy client keeps its bucket (and its count).
    await limiter.before(op, req('10.9.9.9'));
    expect(buckets.size).toBe(10_001);
    clock.advance(60_000);
    await limiter.before(op, req('10.9.9.10'));
    expect(buckets.size).toBe(1);
  });
});
