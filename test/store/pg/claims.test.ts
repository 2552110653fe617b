// Idempotency keys in flight across processes (wcm_idempotency_claims): two instances on two
// connections, as two `wcm serve` processes on one database.
import postgres, { type Sql } from 'postgres';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../../src/store/pg/migrations.js';
import { PgIdempotencyClaims } from '../../../src/store/pg/shared-tables.js';
import type { Claimed } from '../../../src/store/shared-state.js';
import { freshDatabase } from '../../support/postgres.js';

let url = '';
const open: Sql[] = [];
const connect = () => {
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  open.push(sql);
  return sql;
};
beforeAll(async () => {
  url = (await freshDatabase()).url;
  await migrate(connect());
});
afterEach(async () => {
  await connect()`truncate wcm_idempotency_claims`;
  await Promise.all(open.splice(0).map((s) => s.end({ timeout: 1 })));
});

const released = (c: Claimed) => {
  if (!('release' in c)) throw new Error(`expected the claim, got one held for ${c.heldFor}`);
  return c;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PgIdempotencyClaims', () => {
  it('one claim per key across instances: the other learns the holder’s body; released, the key is free again', async () => {
    const [a, b] = [new PgIdempotencyClaims(connect()), new PgIdempotencyClaims(connect())];
    const mine = released(await a.claim('key-1', 'body-x'));
    expect(await b.claim('key-1', 'body-x')).toEqual({ heldFor: 'body-x' });
    expect(await b.claim('key-1', 'body-y')).toEqual({ heldFor: 'body-x' });
    released(await b.claim('key-2', 'body-x')); // another key is free
    await mine.release();
    released(await b.claim('key-1', 'body-y'));
  });

  it('of claims racing on both instances, exactly one wins', async () => {
    const [a, b] = [new PgIdempotencyClaims(connect()), new PgIdempotencyClaims(connect())];
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).claim('race', 'body')));
    expect(results.filter((r) => 'release' in r)).toHaveLength(1);
    expect(results.filter((r) => 'heldFor' in r)).toHaveLength(9);
  });

  it('is renewed while its request runs, and expires once its process is gone', async () => {
    const holderSql = connect();
    const holder = new PgIdempotencyClaims(holderSql, 1200);
    const other = new PgIdempotencyClaims(connect(), 1200);
    released(await holder.claim('long', 'body'));
    await sleep(2000); // past the first expiry: the holder renewed it
    expect(await other.claim('long', 'body')).toEqual({ heldFor: 'body' });
    await holderSql.end(); // the process dies: no renewal, no release
    await sleep(1500);
    const taken = released(await other.claim('long', 'body'));
    await taken.release();
    const [{ n }] = await connect()<{ n: number }[]>`select count(*)::int as n from wcm_idempotency_claims`;
    expect(n).toBe(0);
  });

  it('a release after the claim expired and was taken over leaves the new holder’s claim alone', async () => {
    const [a, b] = [new PgIdempotencyClaims(connect()), new PgIdempotencyClaims(connect())];
    const first = released(await a.claim('k', 'body'));
    // A stalled past its claim's expiry (its next renewal is 10 s away).
    await connect()`update wcm_idempotency_claims set expires_at = clock_timestamp() - interval '1 second'`;
    const second = released(await b.claim('k', 'body'));
    await first.release();
    expect(await a.claim('k', 'body')).toEqual({ heldFor: 'body' });
    await second.release();
  });
});
