import { readdir, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  FIXTURE_COLLECTIONS,
  FixtureError,
  parseFixture,
  putRecords,
  recordCount,
  type Records,
} from '../../store/fixture.js';
import { privateDir } from '../../private-dir.js';
import { replaceWithFixtures } from '../../store/seed.js';
import { COLLECTIONS, type CollectionName } from '../../store/records.js';
import { isSnapshotFile, SnapshotError } from '../../store/snapshot.js';
import { pgShelf, SnapshotChangedError, type TablesBack } from '../../store/pg/named.js';
import type { Store } from '../../store/store.js';
import { ProblemError } from '../problems.js';

/** Where `--seed` files of the first start are remembered (so `reset --to seed` can load them again). */
export const SEED_FILES_SETTING = 'emulator.seed_files';
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Named snapshots live beside the data file: `store.json.snapshots/NAME.json`, in the store's own
 * snapshot format (snapshot.ts) with what a fixture export holds, so a reset swaps the file in and
 * reads it as a cold start does. Those saved before were fixture documents; they are still read.
 */
export const snapshotDir = (dataFile: string) => `${dataFile}.snapshots`;
const snapshotFile = (dataFile: string, name: string) => path.join(snapshotDir(dataFile), `${name}.json`);

function checkName(name: unknown): string {
  if (typeof name !== 'string' || !SNAPSHOT_NAME.test(name)) {
    throw new ProblemError('validation_failed', {
      detail: 'A snapshot name is 1 to 64 letters, digits, `.`, `_` or `-`, starting with a letter or digit.',
      errors: { name: ['Must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$.'] },
    });
  }
  return name;
}

/** Saves the whole state as a named snapshot (written aside, then renamed: never half a file). */
export async function saveSnapshot(
  store: Store,
  dataFile: string,
  name: unknown,
): Promise<{ name: string; bytes: number }> {
  const n = checkName(name);
  const db = shelf(store);
  if (db) return { name: n, bytes: await db.save(n, store.copy(SAVED_COLLECTIONS, KEPT[0])) };
  await privateDir(snapshotDir(dataFile), true);
  const file = snapshotFile(dataFile, n);
  await store.writeCopy(file, SAVED_COLLECTIONS, KEPT[0]);
  return { name: n, bytes: (await stat(file)).size };
}

/** What a named snapshot holds: what a fixture export does (threads with their messages). */
const SAVED_COLLECTIONS: ReadonlySet<CollectionName> = new Set([...FIXTURE_COLLECTIONS, 'thread_messages']);
/** What a reset keeps: the settings (the webhook secret, the admin token, the seed files). */
const KEPT: CollectionName[] = ['settings'];

/** On PostgreSQL, named snapshots are kept in the database, for every process (src/store/pg/named.ts). */
const shelf = (store: Store) => (store.shared ? pgShelf(store.shared.sql) : undefined);

export async function listSnapshots(
  store: Store,
  dataFile: string,
): Promise<Array<{ name: string; bytes: number; saved_at: string }>> {
  const db = shelf(store);
  if (db) return db.list();
  let names: string[];
  try {
    names = (await readdir(snapshotDir(dataFile)))
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5))
      .filter((f) => SNAPSHOT_NAME.test(f));
  } catch {
    return [];
  }
  const out = [];
  for (const name of names.sort()) {
    const st = await stat(snapshotFile(dataFile, name));
    out.push({ name, bytes: st.size, saved_at: st.mtime.toISOString() });
  }
  return out;
}

export async function deleteSnapshot(store: Store, dataFile: string, name: unknown): Promise<void> {
  const n = checkName(name);
  const db = shelf(store);
  if (db) {
    if (!(await db.remove(n))) throw new ProblemError('snapshot_not_found', { detail: `No snapshot named \`${n}\`.` });
    return;
  }
  try {
    await rm(snapshotFile(dataFile, n));
  } catch {
    throw new ProblemError('snapshot_not_found', { detail: `No snapshot named \`${n}\`.` });
  }
}

const nothingThere = { get: () => undefined };

/** The files `--seed` loaded at the first start, as the settings remember them. */
function seedFiles(store: Store): string[] {
  const files = store.get('settings', SEED_FILES_SETTING)?.value;
  if (!Array.isArray(files) || !files.length)
    throw new ProblemError('validation_failed', {
      detail: 'This store was not seeded with `--seed`, so there is no seed to reset to.',
      errors: { to: ['No seed: use `empty` or a snapshot name.'] },
    });
  return files as string[];
}

/** Loads the seed files again as `serve --seed` does (store/seed.ts); a file now invalid changes nothing. */
async function resetToSeed(store: Store, files: string[]): Promise<Record<string, number>> {
  try {
    return await replaceWithFixtures(store, files);
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

/** What a reset loads: records (none, or the first start's seed files), or a snapshot's bytes. Read before anything changes. */
async function target(
  store: Store,
  dataFile: string,
  to: unknown,
): Promise<Records[] | { seed: string[] } | { name: string; file?: string; saved: Buffer; tables?: TablesBack }> {
  if (to === undefined || to === 'empty') return [];
  if (to === 'seed') return { seed: seedFiles(store) };
  const n = checkName(to);
  const db = shelf(store);
  const file = snapshotFile(dataFile, n);
  const saved = db ? await db.read(n) : await readFile(file).catch(() => undefined);
  if (!saved)
    throw new ProblemError('snapshot_not_found', {
      detail: `No snapshot named \`${n}\`; \`GET /_emulator/snapshots\` lists them.`,
    });
  // On a database there is no file to link: the bytes are loaded as they are.
  if (isSnapshotFile(saved))
    return { name: n, file: db ? undefined : file, saved, tables: db?.tablesBack(n, saved, store.tabled) };
  try {
    return [parseFixture(JSON.parse(saved.toString('utf8')), n, nothingThere)];
  } catch (err) {
    if (err instanceof FixtureError || err instanceof SyntaxError) throw cannotLoad(n, err);
    throw err;
  }
}

const cannotLoad = (name: string, err: Error) =>
  new ProblemError('validation_failed', {
    detail: `Snapshot \`${name}\` cannot be loaded: ${err.message.split('\n')[0]}`,
  });

/**
 * Replaces the whole state at once, so a `kill -9` at any moment leaves the old state or the new
 * one, never a mix: a named snapshot's file becomes the store's snapshot (Store.restore); other
 * large resets are written as the snapshot too (Store.bulk), small ones as one CRC-checked journal
 * frame. Settings (the webhook secret, the admin token, the seed files) stay; idempotency records
 * go with the rest.
 */
export async function resetState(store: Store, dataFile: string, to: unknown): Promise<Record<string, number>> {
  // On PostgreSQL a named snapshot saved again between its bytes' read and the reset's transaction
  // is read again (pg/named.ts, tablesBack): the reset loads the newest whole.
  for (let attempt = 1; ; attempt++)
    try {
      return await resetOnce(store, dataFile, to);
    } catch (err) {
      if (!(err instanceof SnapshotChangedError)) throw err;
      if (attempt === RESET_ATTEMPTS)
        throw new ProblemError('validation_failed', {
          detail: `${err.message} It was saved again each of ${RESET_ATTEMPTS} times.`,
          resolution: 'Reset again once the snapshot is no longer being saved.',
        });
    }
}

/** How many times a reset reads a named snapshot that keeps being saved again before it gives up. */
const RESET_ATTEMPTS = 3;

async function resetOnce(store: Store, dataFile: string, to: unknown): Promise<Record<string, number>> {
  const loaded = await target(store, dataFile, to);
  if ('seed' in loaded) return resetToSeed(store, loaded.seed);
  if (!Array.isArray(loaded)) {
    try {
      await store.restore(loaded.saved, KEPT, loaded.file, loaded.tables);
    } catch (err) {
      if (err instanceof SnapshotError) throw cannotLoad(loaded.name, new Error(`it ${err.message}.`));
      throw err;
    }
    const counts: Record<string, number> = {};
    for (const c of FIXTURE_COLLECTIONS) {
      const n = c === 'threads' ? await store.threads.size() : await store.records.size(c);
      if (n) counts[c] = n;
    }
    return counts;
  }
  let counts: Record<string, number> = {};
  // (Collections kept in tables on PostgreSQL are emptied with one statement: they do not count.)
  const deletes = COLLECTIONS.reduce((n, c) => (KEPT.includes(c) || store.tabled.has(c) ? n : n + store.count(c)), 0);
  await store.loadMany(deletes + recordCount(loaded), (tx) => {
    for (const c of COLLECTIONS) if (!KEPT.includes(c)) tx.clear(c);
    counts = putRecords(tx, loaded);
  });
  return counts;
}
