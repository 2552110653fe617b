// Rate-limit buckets and dashboard sessions on a database that cannot be reached: the request gets
// 503 `store_unavailable` (StoreUnavailableError), as the per-request sync gives, never a 500.
import { createServer } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../src/store/pg/errors.js';
import { PgRateLimits, PgSessions } from '../../../src/store/pg/shared-tables.js';

let sql: ReturnType<typeof postgres>;
beforeAll(async () => {
  // A port nothing listens on: taken, then given back.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  sql = postgres(`postgres://wcm:pw@127.0.0.1:${port}/wcm`, { max: 1, connect_timeout: 2, onnotice: () => {} });
});
afterAll(() => sql.end({ timeout: 1 }));

describe('shared tables with the database down', () => {
  it('spending a rate-limit token is store_unavailable', async () => {
    const err = await new PgRateLimits(sql)
      .spend('1.2.3.4', 'GET /v1/x', Date.now(), { limit: 60, msPerToken: 1000 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
  });

  it('reading or starting a dashboard session is store_unavailable', async () => {
    const sessions = new PgSessions(sql);
    expect(
      await sessions.touch('sid', '/dashboard', Date.now(), Date.now() + 1000).catch((e: unknown) => e),
    ).toBeInstanceOf(StoreUnavailableError);
    const s = { id: 'sid', userId: 'u', path: '/dashboard', tokenId: null, expiresAt: 1, cookieAt: 1 };
    expect(await sessions.add(s, Date.now(), 10).catch((e: unknown) => e)).toBeInstanceOf(StoreUnavailableError);
  });
});
