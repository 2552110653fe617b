import { JsonEngine } from '../../src/store/json/engine.js';
import { importFixtures } from '../../src/store/fixtures/seed.js';
import type { Clock } from '../../src/server/context.js';
import type { Store } from '../../src/store/json/store.js';

/**
 * Imports fixture files into a JSON file store through its engine, as `wcm local import` does: all
 * or nothing, one load into an empty store, else one write refusing taken ids. Resolves the counts.
 */
export const seedStore = (store: Store, files: string[]): Promise<Record<string, number>> =>
  importFixtures(new JsonEngine(store), files);

/** The JSON engine over a file store for an App in a test, its clock the test's (`clock`) if given. */
export const fileEngine = (store: Store, clock?: Clock): JsonEngine =>
  new JsonEngine(store, clock ? { clock: () => clock.now().getTime() } : {});
