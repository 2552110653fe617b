import path from 'node:path';
import type { Loaded, StoreEngine } from '../../src/store/engine/interface.js';
import type { Store } from '../../src/store/store.js';

/**
 * The store's interface for an in-process test over `store` (seeded with `fixtures`): on the
 * postgres project a PostgreSQL engine on a schema of its own, loaded with the same fixtures
 * (seeded into a file store in `dir` first); else the JSON engine over `store`.
 */
export async function testEngine(
  s: { readonly store: Store },
  dir: string,
  fixtures: string[],
  clock?: () => number,
): Promise<StoreEngine> {
  const [{ JsonEngine }, { PostgresEngine }, { Store: StoreClass }, { COLLECTIONS }, { seedStore }, { freshSchema }] =
    await Promise.all([
      import('../../src/store/json/engine.js'),
      import('../../src/store/postgres/engine.js'),
      import('../../src/store/store.js'),
      import('../../src/store/records.js'),
      import('./seed-store.js'),
      import('./postgres.js'),
    ]);
  if (process.env.WCM_TEST_STORE !== 'postgres') return new JsonEngine(s.store, clock ? { clock } : {});
  const seeded = await StoreClass.open(path.join(dir, 'engine-seed.json'));
  await seedStore(seeded, fixtures);
  const records: Loaded[] = [];
  for (const c of COLLECTIONS) for (const rec of seeded.values(c)) records.push([c, rec] as unknown as Loaded);
  await seeded.close();
  const db = await PostgresEngine.open((await freshSchema()).url);
  await db.load(COLLECTIONS, records);
  return db;
}
