import { afterEach, beforeEach, expect, it } from 'vitest';
import type { StoreEngine } from '../../src/store/engine/interface.js';
import { inProcess, TestClock, type InProcess } from './server.js';

/** A demo server for each test of an API file, and what its tests ask of its store. */
export interface DemoPerTest {
  /** The current test's server (the App and its store). */
  readonly s: InProcess;
  /** The store's interface the App reads and writes (PostgreSQL on the postgres project). */
  readonly db: StoreEngine;
  /** The current test's clock: the App's, and the store's time when the test starts. */
  readonly clock: TestClock;
  /** Sends a request to the current test's App (`InProcess.request`). */
  request: InProcess['request'];
  /** The store's time (`tx.now()`): the test clock on the JSON engine, from it on PostgreSQL. */
  storeNow(): Promise<number>;
  /**
   * The record is the one read before: the same object on the JSON engine (nothing rewrote it), the
   * same content on PostgreSQL (every read parses a new one).
   */
  expectUnchanged(after: unknown, before: unknown): void;
  /**
   * Runs `fn` and checks that `at(result)` is a timestamp of the store's time during it: exactly the
   * test clock's time on the JSON engine (the clock stands still), within the request on PostgreSQL.
   */
  stampedDuring<T>(fn: () => Promise<T>, at: (r: T) => string): Promise<T>;
}

/**
 * Registers, in the calling file, a demo server per test (`inProcess` on a new TestClock that times
 * the store too, closed after the test), and returns accessors to the current test's.
 */
export function demoPerTest(): DemoPerTest {
  let current: { s: InProcess; clock: TestClock } | undefined;
  beforeEach(async () => {
    const clock = new TestClock();
    current = { s: await inProcess({ clock, storeClock: true }), clock };
  });
  afterEach(async () => {
    await current?.s.close();
    current = undefined;
  });
  const now = () => {
    if (!current) throw new Error('demoPerTest: no server outside a test');
    return current;
  };
  const t: DemoPerTest = {
    get s() {
      return now().s;
    },
    get db() {
      return now().s.db;
    },
    get clock() {
      return now().clock;
    },
    request: (r) => now().s.request(r),
    storeNow: () => t.db.read((tx) => tx.now()),
    expectUnchanged: (after, before) =>
      t.db.kind === 'json' ? expect(after).toBe(before) : expect(after).toStrictEqual(before),
    async stampedDuring(fn, at) {
      const from = await t.storeNow();
      const out = await fn();
      const to = await t.storeNow();
      const stamp = at(out);
      expect(stamp).toBe(new Date(Date.parse(stamp)).toISOString());
      expect(Date.parse(stamp)).toBeGreaterThanOrEqual(from);
      expect(Date.parse(stamp)).toBeLessThanOrEqual(to);
      return out;
    },
  };
  return t;
}

/** A response as the tests read it: the status and the parsed body. */
type Answer = { status: number; json: any };

/**
 * Registers `%s: 403, read back unchanged`, one test a row `[case, token, code, ...rest]`: the
 * operation tried with the token is refused 403 with the row's code, the record it aimed at is
 * unchanged in the store (`unchanged(after, before)`, the file's own check), and `readBack` (with a
 * token that may read it) finds it as it was. `rest` is what the row passes on to the three.
 */
export function refusedUnchanged<R extends unknown[]>(
  rows: Array<[name: string, token: string, code: string, ...rest: R]>,
  op: {
    stored(...rest: R): Promise<unknown>;
    attempt(token: string, ...rest: R): Promise<Answer>;
    unchanged(after: unknown, before: unknown): void;
    readBack(...rest: R): Promise<void>;
  },
): void {
  it.each(rows)('%s: 403, read back unchanged', async (_name, token, code, ...rest) => {
    const before = await op.stored(...(rest as R));
    const res = await op.attempt(token, ...(rest as R));
    expect(res.status).toBe(403);
    expect(res.json.code).toBe(code);
    op.unchanged(await op.stored(...(rest as R)), before);
    await op.readBack(...(rest as R));
  });
}
