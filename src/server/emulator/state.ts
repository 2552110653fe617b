import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  exportFixture,
  FixtureError,
  parseFixture,
  putRecords,
  recordCount,
  type Records,
} from '../../store/fixture.js';
import { COLLECTIONS } from '../../store/records.js';
import type { Store } from '../../store/store.js';
import { ProblemError } from '../problems.js';

/** Where `--seed` files of the first start are remembered (so `reset --to seed` can load them again). */
export const SEED_FILES_SETTING = 'emulator.seed_files';
export const SNAPSHOT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Named snapshots live beside the data file: `store.json.snapshots/NAME.json` (fixture format). */
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
  await mkdir(snapshotDir(dataFile), { recursive: true, mode: 0o700 });
  const text = JSON.stringify(exportFixture(store));
  const tmp = `${snapshotFile(dataFile, n)}.${process.pid}.tmp`;
  await writeFile(tmp, text, { mode: 0o600 });
  await rename(tmp, snapshotFile(dataFile, n));
  return { name: n, bytes: Buffer.byteLength(text) };
}

export async function listSnapshots(
  dataFile: string,
): Promise<Array<{ name: string; bytes: number; saved_at: string }>> {
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

export async function deleteSnapshot(dataFile: string, name: unknown): Promise<void> {
  const n = checkName(name);
  try {
    await rm(snapshotFile(dataFile, n));
  } catch {
    throw new ProblemError('snapshot_not_found', { detail: `No snapshot named \`${n}\`.` });
  }
}

const nothingThere = { get: () => undefined };

/** The records a reset loads: none, the first start's seed files, or a snapshot. Parsed before anything changes. */
async function target(store: Store, dataFile: string, to: unknown): Promise<Records[]> {
  if (to === undefined || to === 'empty') return [];
  if (to === 'seed') {
    const files = store.get('settings', SEED_FILES_SETTING)?.value;
    if (!Array.isArray(files) || !files.length)
      throw new ProblemError('validation_failed', {
        detail: 'This store was not seeded with `--seed`, so there is no seed to reset to.',
        errors: { to: ['No seed: use `empty` or a snapshot name.'] },
      });
    const sets: Records[] = [];
    for (const f of files as string[])
      sets.push(
        parseFixture(JSON.parse(await readFile(f, 'utf8')), f, {
          get: (c, id) =>
            sets
              .map((s) => (s as unknown as Record<string, Array<{ id: string }>>)[c]?.find((r) => r.id === id))
              .find(Boolean),
        }),
      );
    return sets;
  }
  const n = checkName(to);
  let text: string;
  try {
    text = await readFile(snapshotFile(dataFile, n), 'utf8');
  } catch {
    throw new ProblemError('snapshot_not_found', {
      detail: `No snapshot named \`${n}\`; \`GET /_emulator/snapshots\` lists them.`,
    });
  }
  try {
    return [parseFixture(JSON.parse(text), n, nothingThere)];
  } catch (err) {
    if (err instanceof FixtureError || err instanceof SyntaxError)
      throw new ProblemError('validation_failed', {
        detail: `Snapshot \`${n}\` cannot be loaded: ${(err as Error).message.split('\n')[0]}`,
      });
    throw err;
  }
}

/**
 * Replaces the whole state at once: a large reset is written as the store's snapshot (Store.bulk),
 * a small one as one CRC-checked journal frame, so a `kill -9` at any moment leaves the old state
 * or the new one, never a mix. Settings (the webhook secret, the admin token, the seed files)
 * stay; idempotency records go with the rest.
 */
export async function resetState(store: Store, dataFile: string, to: unknown): Promise<Record<string, number>> {
  const sets = await target(store, dataFile, to);
  let counts: Record<string, number> = {};
  const deletes = COLLECTIONS.reduce((n, c) => (c === 'settings' ? n : n + store.count(c)), 0);
  await store.loadMany(deletes + recordCount(sets), (tx) => {
    for (const c of COLLECTIONS) if (c !== 'settings') for (const id of store.ids(c)) tx.delete(c, id);
    counts = putRecords(tx, sets);
  });
  return counts;
}
