import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AnyOperation } from '../../src/contract/operations.js';
import { ProblemError } from '../../src/server/problems.js';
import { RateLimiter } from '../../src/server/ratelimit.js';
import type { StoreEngine } from '../../src/store/engine/interface.js';
import { JsonEngine } from '../../src/store/json/engine.js';
import { PostgresEngine } from '../../src/store/postgres/engine.js';
import { freshSchema } from '../support/postgres.js';
import { TestClock, tempDir } from '../support/server.js';

const op = (operationId: string) => ({ operationId, access: 'public' }) as AnyOperation;
const from = (remoteAddress: string) => ({ remoteAddress }) as never;
/** The problem a refused request throws, or the headers of an allowed one. */
const attempt = (limiter: RateLimiter, route = 'recordAgentChatOpened', client = '10.0.0.1') =>
  limiter.before(op(route), from(client)).then(
    (ok) => ({ status: 200, headers: ok.headers }),
    (err: ProblemError) => ({ status: err.status, headers: err.headers as Record<string, string> }),
  );

/**
 * Rate limits hold across every process on one store: two limiters ("A" and "B", as two `wcm
 * serve` processes) over the store's buckets. On the JSON file one engine (one process); on
 * PostgreSQL two engines on one database, timed by the database's clock (so only tests that do
 * not move the clock run there: its limits are low enough that real time refills nothing).
 */
const ENGINES: { name: string; movable: boolean; open(clock: TestClock): Promise<[StoreEngine, StoreEngine]> }[] = [
  {
    name: 'JSON file',
    movable: true,
    async open(clock) {
      const { dir } = tempDir();
      const db = await JsonEngine.open(`${dir}/store.json`, { clock: () => clock.now().getTime() });
      return [db, db];
    },
  },
  {
    name: 'PostgreSQL',
    movable: false,
    async open() {
      const { url } = await freshSchema();
      return [await PostgresEngine.open(url), await PostgresEngine.open(url)];
    },
  },
];

describe.each(ENGINES)('rate limits shared: $name', (kind) => {
  let engines: [StoreEngine, StoreEngine];
  let clock: TestClock;
  beforeEach(async () => {
    clock = new TestClock();
    engines = await kind.open(clock);
  });
  afterEach(async () => {
    await engines[0].close();
    if (engines[1] !== engines[0]) await engines[1].close();
  });
  const pair = (limit = 60) => engines.map((db) => new RateLimiter(limit, db)) as [RateLimiter, RateLimiter];

  it.runIf(kind.movable)(
    '61 requests in a minute across two instances: 60 pass, counting down together, the 61st is refused',
    async () => {
      const [a, b] = pair();
      const remaining: number[] = [];
      for (let i = 0; i < 60; i++) {
        const r = await attempt(i % 2 ? b : a);
        expect(r.status).toBe(200);
        remaining.push(Number(r.headers['RateLimit-Remaining']));
        clock.advance(10); // 0.6 s in all: less than one token's refill (1 s)
      }
      expect(remaining).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
      const over = await attempt(b);
      expect(over.status).toBe(429);
      expect(over.headers['Retry-After']).toBe('1');
      expect(over.headers['RateLimit-Remaining']).toBe('0');
      expect((await attempt(a)).status).toBe(429);
    },
  );

  it('concurrent requests on both instances spend each token once', async () => {
    const [a, b] = pair(20);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => attempt(i % 2 ? b : a)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(20);
    expect(results.filter((r) => r.status === 429)).toHaveLength(20);
    const left = results.filter((r) => r.status === 200).map((r) => Number(r.headers['RateLimit-Remaining']));
    expect(left.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it.runIf(kind.movable)(
    'the bucket refills at the limit per minute on the injected clock, whichever instance asks',
    async () => {
      const [a, b] = pair(60);
      for (let i = 0; i < 60; i++) await attempt(a);
      clock.advance(999);
      expect((await attempt(b)).status).toBe(429);
      clock.advance(1);
      const one = await attempt(b);
      expect(one.status).toBe(200);
      expect(one.headers['RateLimit-Remaining']).toBe('0');
      clock.advance(60_000);
      const full = await attempt(a);
      expect(full.headers['RateLimit-Remaining']).toBe('59');
      expect(full.headers['RateLimit-Reset']).toBe('1');
    },
  );

  it('counts each client address and each route apart; a reset on one instance fills every bucket', async () => {
    const [a, b] = pair(2);
    await attempt(a);
    await attempt(a);
    expect((await attempt(b)).status).toBe(429);
    expect((await attempt(b, 'recordAgentChatOpened', '10.0.0.2')).status).toBe(200);
    expect((await attempt(b, 'createPaymentSession')).status).toBe(200);
    await a.reset();
    expect((await attempt(b)).headers['RateLimit-Remaining']).toBe('1');
  });

  it('20 requests a minute across two instances: 20 pass, counting down together, the 21st is refused on both', async () => {
    const [a, b] = pair(20);
    const remaining: number[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await attempt(i % 2 ? b : a);
      expect(r.status).toBe(200);
      remaining.push(Number(r.headers['RateLimit-Remaining']));
    }
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => 19 - i));
    expect((await attempt(b)).status).toBe(429);
    expect((await attempt(a)).status).toBe(429);
  });
});
