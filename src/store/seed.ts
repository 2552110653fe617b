import { stat } from 'node:fs/promises';
import { FixtureCollector, type CheckedFixture, type RecordSink } from './fixture-check.js';
import { readFixtureStream, FixtureSyntaxError } from './fixture-stream.js';
import {
  checkFixture,
  doneWithCrossProblems,
  FixtureError,
  lookupWith,
  putRecords,
  type RecordLookup,
  type Records,
} from './fixture.js';
import { FIXTURE_COLLECTIONS } from './fixture-schema.js';
import { LazyLines } from './lazy-lines.js';
import type { CollectionName, Tx } from './records.js';
import { ConflictError, isEmptyStore, SNAPSHOT_REPLACED, type Loaded, type StoreEngine } from './engine/interface.js';

/**
 * Fixture files that do not exist, said before anything is opened or written (`wcm serve --seed`,
 * `wcm local import`): no data file, journal or store is created for a typo.
 */
export class FixtureNotFoundError extends FixtureError {
  constructor(readonly missing: string[]) {
    super(missing[0], [{ path: '$', message: 'not found' }]);
    this.message =
      missing.length === 1
        ? `Fixture not found: ${missing[0]}; nothing was imported, and no file was written.`
        : `Fixtures not found: ${missing.join(', ')}; nothing was imported, and no file was written.`;
  }
}

/** Throws FixtureNotFoundError naming every file of `files` that does not exist. */
export async function checkFixturesExist(files: string[]): Promise<void> {
  const missing: string[] = [];
  for (const f of files) {
    const found = await stat(f).then(
      () => true,
      (err: NodeJS.ErrnoException) => err.code !== 'ENOENT' && err.code !== 'ENOTDIR',
    );
    if (!found) missing.push(f);
  }
  if (missing.length) throw new FixtureNotFoundError(missing);
}

const unreadable = (file: string, err: unknown) =>
  new FixtureError(file, [
    {
      path: '$',
      message:
        (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'not found'
          : `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    },
  ]);
const notJson = (file: string, err: unknown) =>
  new FixtureError(file, [{ path: '$', message: `is not valid JSON (${(err as Error).message})` }]);

/**
 * Reads and validates a fixture file as a stream (fixture-stream.ts): records are checked as they
 * are read, and the file's text is never held whole. `threads`: 'packed' keeps them packed
 * (packThread), their messages as lines for a bulk load; a RecordSink takes those it takes as they are read.
 */
export async function readFixtureFile(
  file: string,
  existing?: RecordLookup,
  checked?: (f: CheckedFixture) => void,
  threads?: 'packed' | RecordSink,
): Promise<Records> {
  const sink = threads === 'packed' ? undefined : threads;
  const lines = threads === 'packed' ? new LazyLines((await stat(file).catch(() => null))?.size ?? 0) : undefined;
  const collector = new FixtureCollector(file, lines ?? sink);
  try {
    await readFixtureStream(file, collector);
  } catch (err) {
    if (err instanceof FixtureSyntaxError) throw notJson(file, err);
    if (err instanceof FixtureError || (sink && err === sink.failure)) throw err;
    throw unreadable(file, err);
  }
  const f = doneWithCrossProblems(collector, existing, sink);
  checked?.(f);
  return { ...checkFixture(f, file, existing, sink), messages: lines };
}

/** A lookup that finds nothing: files checked against an empty store. */
const NOTHING: RecordLookup = { get: () => undefined };

/** The collections a seed or an import of fixtures writes: the fixtures' own, and the threads' messages. */
export const SEED_COLLECTIONS: readonly CollectionName[] = [...FIXTURE_COLLECTIONS, 'thread_messages'];

/**
 * Reads and checks fixture files (streamed), each against `existing` plus the files before it:
 * every file is read before anything is written.
 */
export async function readFixtures(
  files: string[],
  existing: RecordLookup = NOTHING,
  checked?: (f: CheckedFixture) => void,
): Promise<Records[]> {
  const all: Records[] = [];
  for (const file of files) all.push(await readFixtureFile(file, lookupWith(existing, all), checked));
  return all;
}

/** Fixture records as a load takes them (a thread as its record and its messages), and how many of each collection. */
export function loadedRecords(all: ReadonlyArray<Records>): { records: Loaded[]; counts: Record<string, number> } {
  const records: Loaded[] = [];
  const collect: Tx = {
    get: () => undefined,
    put: (c, rec) => (records.push([c, rec] as unknown as Loaded), rec),
    delete: () => {
      throw new Error('A load of fixtures deletes nothing.');
    },
    clear: () => {
      throw new Error('A load of fixtures clears nothing.');
    },
  };
  const counts = putRecords(collect, all);
  return { records, counts };
}

/**
 * Seeds an empty store from fixture files, through the store's interface (`db.load`): all or
 * nothing, and only if the store is still empty when the load's transaction runs (of servers
 * starting together on one empty database, one seeds). Resolves the records' counts, or undefined
 * when the store held data already. `also` is written in the same load (the seed files' setting).
 */
export async function seedEngine(
  db: StoreEngine,
  files: string[],
  opts: {
    checked?: (f: CheckedFixture) => void;
    also?: Loaded[];
    background?: (durable: Promise<void>) => void;
  } = {},
): Promise<{ counts: Record<string, number>; records: Records[] } | undefined> {
  const all = await readFixtures(files, NOTHING, opts.checked);
  const { records, counts } = loadedRecords(all);
  const loaded = await db.load(SEED_COLLECTIONS, records, {
    ifEmpty: true,
    also: opts.also,
    background: opts.background,
  });
  return loaded ? { counts, records: all } : undefined;
}

/** A fixture file read and checked against its schema (streamed), not yet across records. */
async function readChecked(file: string): Promise<CheckedFixture> {
  const collector = new FixtureCollector(file);
  try {
    await readFixtureStream(file, collector);
  } catch (err) {
    if (err instanceof FixtureSyntaxError) throw notJson(file, err);
    if (err instanceof FixtureError) throw err;
    throw unreadable(file, err);
  }
  return doneWithCrossProblems(collector);
}

/**
 * Imports fixture files through the store's interface, all or nothing. Into an empty store, one
 * load (the JSON engine writes a big one as its snapshot). Otherwise one write transaction: the
 * records the files name (ids they add, records they refer to) are read in it (locked on
 * PostgreSQL, so nobody deletes one meanwhile), the files checked against them with the messages
 * a seed gives, and every record created (an id another process took meanwhile is refused the
 * same way). `replace`: everything but the settings and the named snapshots is replaced by the
 * fixtures, in one load. Resolves how many records of each collection.
 */
export async function importFixtures(
  db: StoreEngine,
  files: string[],
  opts: { replace?: boolean } = {},
): Promise<Record<string, number>> {
  if (opts.replace || (await db.read(isEmptyStore))) {
    const { records, counts } = loadedRecords(await readFixtures(files));
    if (opts.replace) {
      await db.load(SNAPSHOT_REPLACED, records);
      return counts;
    }
    if (await db.load(SEED_COLLECTIONS, records, { ifEmpty: true })) return counts;
  }
  const checked: CheckedFixture[] = [];
  for (const file of files) checked.push(await readChecked(file));
  // Which records of the store the checks look at: asked once with nothing there.
  const asked = new Map<CollectionName, Set<string>>();
  const recorder: RecordLookup = {
    get: (c, id) => {
      let ids = asked.get(c);
      if (!ids) asked.set(c, (ids = new Set()));
      ids.add(id);
      return undefined;
    },
  };
  const dry: Records[] = [];
  checked.forEach((f, i) => {
    try {
      dry.push(checkFixture(f, files[i], lookupWith(recorder, dry)));
    } catch {
      // Checked again below against what the store holds.
    }
  });
  // The records of the last run of the write, to name a record a conflict is about.
  let last: Records[] = [];
  const write = db.write(async (tx) => {
    const held = new Map<CollectionName, Map<string, unknown>>();
    for (const [c, ids] of asked) {
      const m = new Map<string, unknown>();
      for (const id of ids) {
        const rec = await tx.get(c, id);
        if (rec !== undefined) m.set(id, rec);
      }
      held.set(c, m);
    }
    const existing: RecordLookup = { get: (c, id) => held.get(c)?.get(id) };
    const all: Records[] = [];
    checked.forEach((f, i) => all.push(checkFixture(f, files[i], lookupWith(existing, all))));
    last = all;
    const { records, counts } = loadedRecords(all);
    for (const [c, rec] of records) await tx.create(c, rec as never);
    return counts;
  });
  return write.catch((err: unknown) => {
    throw err instanceof ConflictError ? takenError(files, last, err) : err;
  });
}

/** A record the import creates that another process created meanwhile: the message an id the store holds gets. */
function takenError(files: string[], all: Records[], err: ConflictError): Error {
  const c = err.collection === 'thread_messages' ? 'threads' : err.collection;
  for (const [i, records] of all.entries()) {
    const list = (records as unknown as Record<string, Array<{ id: string }> | undefined>)[c] ?? [];
    const n = list.findIndex((r) => r.id === err.id);
    if (n >= 0)
      return new FixtureError(files[i], [
        { path: `$.${c}[${n}]${c === 'tokens' ? '' : '.id'}`, message: `id \`${err.id}\` already exists in the store` },
      ]);
  }
  return err;
}
