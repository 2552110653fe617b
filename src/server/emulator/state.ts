import { SnapshotUnreadableError, type SnapshotInfo, type StoreEngine } from '../../store/engine/interface.js';
import { FIXTURE_COLLECTIONS, FixtureError, type Records } from '../../store/fixtures/import.js';
import { loadedRecords, readFixtures } from '../../store/fixtures/seed.js';
import { ProblemError } from '../problems.js';

/** Where `--seed` files of the first start are remembered (so `reset --to seed` can load them again). */
export const SEED_FILES_SETTING = 'emulator.seed_files';
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Named snapshots are the engine's (StoreEngine.snapshots): on the JSON file, files beside the
 * data file (`store.json.snapshots/NAME.json`, in the store's own snapshot format); on PostgreSQL,
 * copies of the tables in the database, for every process on it. A restore or a reset keeps the
 * settings (the webhook secret, the admin token, the seed files, the clock) and replaces the rest
 * at once; idempotency records go with the rest.
 */
function checkName(name: unknown): string {
  if (typeof name !== 'string' || !SNAPSHOT_NAME.test(name)) {
    throw new ProblemError('validation_failed', {
      detail: 'A snapshot name is 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit.',
      errors: { name: ['Must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$.'] },
    });
  }
  return name;
}

/** Saves the whole state as a named snapshot (a name saved before is replaced, whole). */
export async function saveSnapshot(db: StoreEngine, name: unknown): Promise<{ name: string; bytes: number }> {
  const n = checkName(name);
  const saved = await db.snapshots.save(n);
  return { name: n, bytes: saved.bytes };
}

export function listSnapshots(db: StoreEngine): Promise<SnapshotInfo[]> {
  return db.snapshots.list();
}

export async function deleteSnapshot(db: StoreEngine, name: unknown): Promise<void> {
  const n = checkName(name);
  if (!(await db.snapshots.delete(n)))
    throw new ProblemError('snapshot_not_found', { detail: `No snapshot named \`${n}\`.` });
}

/** The files `--seed` loaded at the first start, as the settings remember them. */
async function seedFiles(db: StoreEngine): Promise<string[]> {
  const files = (await db.read((tx) => tx.get('settings', SEED_FILES_SETTING)))?.value;
  if (!Array.isArray(files) || !files.length)
    throw new ProblemError('validation_failed', {
      detail: 'This store was not seeded with `--seed`, so there is no seed to reset to.',
      errors: { to: ['No seed: use `empty` or a snapshot name.'] },
    });
  return files as string[];
}

/**
 * Reads the seed files again as `serve --seed` does (streamed, each checked against the files
 * before it), all before anything changes; a file now invalid is a 422 naming it, and nothing changes.
 */
async function readSeed(files: string[]): Promise<Records[]> {
  try {
    return await readFixtures(files);
  } catch (err) {
    if (!(err instanceof FixtureError)) throw err;
    throw new ProblemError('validation_failed', {
      detail: `The seed file \`${err.source}\` cannot be loaded any more, so nothing was reset: ${err.problems
        .slice(0, 3)
        .map((p) => `${p.path} ${p.message}`)
        .join('; ')}${err.problems.length > 3 ? '; …' : ''}`,
      resolution: 'Fix or restore the file `--seed` loaded at the first start, or reset to `empty` or a snapshot.',
      errors: { to: err.problems.map((p) => `${err.source}: ${p.path} ${p.message}`) },
    });
  }
}

/** How many records of each fixture collection the store holds (those it holds any of). */
function countsOf(db: StoreEngine): Promise<Record<string, number>> {
  return db.read(async (tx) => {
    const counts: Record<string, number> = {};
    for (const c of FIXTURE_COLLECTIONS) {
      const n = await tx.count(c);
      if (n) counts[c] = n;
    }
    return counts;
  });
}

/**
 * Replaces the whole state at once (StoreEngine.snapshots): a reader sees the old state or the new
 * one, never a mix, and on the JSON file a `kill -9` at any moment leaves one or the other. `to`
 * is `empty`, `seed` (the first start's seed files, read again) or a snapshot's name.
 */
export async function resetState(db: StoreEngine, to: unknown): Promise<Record<string, number>> {
  if (to === undefined || to === 'empty') {
    await db.snapshots.reset([]);
    return {};
  }
  if (to === 'seed') {
    const { records, counts } = loadedRecords(await readSeed(await seedFiles(db)));
    await db.snapshots.reset(records);
    return counts;
  }
  const n = checkName(to);
  let restored: boolean;
  try {
    restored = await db.snapshots.restore(n);
  } catch (err) {
    if (err instanceof SnapshotUnreadableError) throw new ProblemError('validation_failed', { detail: err.message });
    throw err;
  }
  if (!restored)
    throw new ProblemError('snapshot_not_found', {
      detail: `No snapshot named \`${n}\`; \`GET /_emulator/snapshots\` lists them.`,
    });
  return countsOf(db);
}
