import { stat } from 'node:fs/promises';
import { FixtureCollector, type CheckedFixture } from './fixture-check.js';
import { readFixtureStream, FixtureSyntaxError } from './fixture-stream.js';
import {
  checkFixture,
  FixtureError,
  importRecords,
  lookupWith,
  parseFixture,
  type RecordLookup,
  type Records,
} from './fixture.js';
import { LazyLines } from './lazy-lines.js';
import type { Store } from './store.js';

const unreadable = (file: string, err: unknown) =>
  new FixtureError(file, [
    { path: '$', message: `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` },
  ]);
const notJson = (file: string, err: unknown) =>
  new FixtureError(file, [{ path: '$', message: `is not valid JSON (${(err as Error).message})` }]);

/**
 * Reads and validates a fixture file as a stream (fixture-stream.ts): records are checked as they
 * are read, and the file's text is never held whole. `packed`: threads are kept packed
 * (packThread), their messages as lines for a bulk load.
 */
export async function readFixtureFile(
  file: string,
  existing?: RecordLookup,
  checked?: (f: CheckedFixture) => void,
  packed = false,
): Promise<Records> {
  const lines = packed ? new LazyLines((await stat(file).catch(() => null))?.size ?? 0) : undefined;
  const collector = new FixtureCollector(file, lines);
  try {
    await readFixtureStream(file, collector);
  } catch (err) {
    if (err instanceof FixtureSyntaxError) throw notJson(file, err);
    if (err instanceof FixtureError) throw err;
    throw unreadable(file, err);
  }
  const f = collector.done();
  checked?.(f);
  return { ...checkFixture(f, file, existing), messages: lines };
}

/**
 * Reads, validates and imports fixture files into a store: all or nothing. `parsed` are the files'
 * documents when the caller already read them; else each file is streamed, and `checked` sees each
 * as it passed its schema (tokens still in clear; on the JSON store its threads already packed, packThread).
 */
export async function seedStore(
  store: Store,
  files: string[],
  parsed?: unknown[],
  checked?: (f: CheckedFixture) => void,
): Promise<Record<string, number>> {
  // Validate every file before writing any, each against the store plus the files before it, then
  // write them in ONE load: a failure anywhere leaves the store as it was.
  const all: Records[] = [];
  for (const [i, file] of files.entries())
    all.push(
      parsed
        ? parseFixture(parsed[i], file, lookupWith(store, all))
        : await readFixtureFile(file, lookupWith(store, all), checked, !store.shared),
    );
  if (store.shared) await refuseTakenThreads(store, files, all);
  return importRecords(store, ...all);
}

/**
 * On PostgreSQL the threads are not in memory for the check above to see: the ids already in
 * their table are refused here, with the same message, before anything is written.
 */
async function refuseTakenThreads(store: Store, files: string[], all: Records[]): Promise<void> {
  const taken = new Set(await store.threads.taken(all.flatMap((r) => r.threads.map((t) => t.id))));
  if (!taken.size) return;
  for (const [i, records] of all.entries()) {
    const problems = records.threads.flatMap((t, n) =>
      taken.has(t.id) ? [{ path: `$.threads[${n}].id`, message: `id \`${t.id}\` already exists in the store` }] : [],
    );
    if (problems.length) throw new FixtureError(files[i], problems);
  }
}
