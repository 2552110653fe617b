import { CLOCK_OFFSET_SETTING, type StoreEngine } from '../../src/store/engine/interface.js';
import { JsonEngine } from '../../src/store/json/engine.js';
import { PostgresEngine } from '../../src/store/postgres/engine.js';
import { seedEngine } from '../../src/store/fixtures/seed.js';
import type { Store } from '../../src/store/json/store.js';
import { freshSchema } from './postgres.js';
import { DEMO, type TestClock } from './server.js';

/**
 * The store's interface over the demo, for an App of a test: the JSON engine over `s.store` (the
 * demo store of `inProcess`), timed by `clock` when given; on the postgres project, a PostgreSQL
 * engine on a schema of its own seeded with the demo, its clock (the database's) put at the test's
 * by the offset setting (move both with `moveClock`, test/support/oauth.ts). The caller closes a
 * PostgreSQL engine.
 */
export async function demoEngine(s: { readonly store: Store }, clock?: TestClock): Promise<StoreEngine> {
  if (process.env.WCM_TEST_STORE !== 'postgres')
    return new JsonEngine(s.store, clock ? { clock: () => clock.now().getTime() } : {});
  const db = await PostgresEngine.open((await freshSchema()).url, { max: 2 });
  await seedEngine(db, [DEMO]);
  if (clock) {
    const off = clock.now().getTime() - (await db.read((tx) => tx.now()));
    await db.write((tx) => tx.put('settings', { id: CLOCK_OFFSET_SETTING, value: off }));
  }
  return db;
}
