import { stat } from 'node:fs/promises';
import { FixtureCollector, type CheckedFixture, type RecordSink } from './fixture-check.js';
import { readFixtureStream, FixtureSyntaxError } from './fixture-stream.js';
import {
  checkFixture,
  doneWithCrossProblems,
  FixtureError,
  lookupWith,
  parseFixture,
  putRecords,
  recordCount,
  type RecordLookup,
  type Records,
} from './fixture.js';
import { FIXTURE_COLLECTIONS } from './fixture-schema.js';
import { LazyLines } from './lazy-lines.js';
import { COLLECTIONS, type CollectionName } from './records.js';
import type { Store, Tx } from './store.js';
import { ConflictError, isEmptyStore, SNAPSHOT_REPLACED, type Loaded, type StoreEngine } from './engine/interface.js';
import { isDeadlock, unavailable } from './pg/errors.js';
import { RECORD_TABLE_COLLECTIONS } from './pg/records.js';
import { TableImport } from './pg/table-import.js';
import { THREAD_COLLECTIONS } from './pg/threads.js';

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

/**
 * Reads, validates and imports fixture files into a store: all or nothing. `parsed` are the files'
 * documents when the caller already read them; else each file is streamed, and `checked` sees each
 * as it passed its schema (tokens still in clear; on the JSON store its threads already packed, packThread).
 * `also` writes more in the same load. `background`: on the JSON store, a big load resolves once it
 * is in memory, its snapshot still being written; writes wait until it is durable (Store.bulk).
 */
export async function seedStore(
  store: Store,
  files: string[],
  parsed?: unknown[],
  checked?: (f: CheckedFixture) => void,
  opts: { also?: (tx: Tx) => void; background?: (durable: Promise<void>) => void } = {},
): Promise<Record<string, number>> {
  if (store.shared && !parsed) return importShared(store, files, { checked, also: opts.also });
  // Validate every file before writing any, each against the store plus the files before it, then
  // write them in ONE load: a failure anywhere leaves the store as it was.
  const all: Records[] = [];
  const existing = await held(store);
  for (const [i, file] of files.entries())
    all.push(
      parsed
        ? parseFixture(parsed[i], file, lookupWith(existing, all))
        : await readFixtureFile(file, lookupWith(existing, all), checked, store.shared ? undefined : 'packed'),
    );
  if (store.shared) await refuseTaken(store, files, all, ['threads', ...store.tabled]);
  let counts: Record<string, number> = {};
  await store.loadMany(recordCount(all), (tx) => void ((counts = putRecords(tx, all)), opts.also?.(tx)), opts);
  return counts;
}

/** Collections that fixture records refer to (checkFixture: articles' lists, orders' offers, events' agents). */
const REFERENCED: readonly CollectionName[] = ['knowledge_lists', 'offers', 'agents'];

/**
 * The store as fixtures are checked against. Collections kept in tables (PostgreSQL) are not in
 * memory: the ids of those that records refer to (configuration-sized) are read first, the others'
 * ids are checked by refuseTaken instead.
 */
async function held(store: Store): Promise<RecordLookup> {
  const ids = new Map<CollectionName, Set<string>>();
  for (const c of REFERENCED.filter((r) => store.tabled.has(r))) {
    const set = new Set<string>();
    for await (const r of store.records.stream(c)) set.add(r.id);
    ids.set(c, set);
  }
  return { get: (c, id) => (store.tabled.has(c) ? ids.get(c)?.has(id) || undefined : store.get(c, id)) };
}

/**
 * On PostgreSQL threads and the records of tabled collections are not in memory for the check
 * above to see: the ids already in their tables are refused here, with the same message, before
 * anything is written. An import checks again under the write lock (the files were read without
 * it): ids in memory are looked up in the state then caught up.
 */
async function refuseTaken(
  store: Store,
  files: string[],
  all: Records[],
  collections: readonly CollectionName[],
): Promise<void> {
  for (const c of collections) {
    const ids = all.flatMap((r) => ((r[c as keyof Records] ?? []) as Array<{ id: string }>).map((t) => t.id));
    if (!ids.length) continue;
    const taken = new Set(
      c === 'threads'
        ? await store.threads.taken(ids)
        : store.tabled.has(c)
          ? await store.records.taken(c, ids)
          : ids.filter((id) => store.get(c, id) !== undefined),
    );
    if (!taken.size) continue;
    for (const [i, records] of all.entries()) {
      const problems = ((records[c as keyof Records] ?? []) as Array<{ id: string }>).flatMap((t, n) =>
        taken.has(t.id) ? [{ path: `$.${c}[${n}].id`, message: `id \`${t.id}\` already exists in the store` }] : [],
      );
      if (problems.length) throw new FixtureError(files[i], problems);
    }
  }
}

/**
 * Replaces everything but the settings by fixture files, all or nothing (a reset to the seed): the
 * files are read as seedStore reads them (streamed, threads packed), each checked against the files
 * before it only, then written in ONE load with the clearing; on PostgreSQL importShared replaces.
 */
export async function replaceWithFixtures(store: Store, files: string[]): Promise<Record<string, number>> {
  if (store.shared) return importShared(store, files, { replace: true });
  const all: Records[] = [];
  for (const file of files) all.push(await readFixtureFile(file, lookupWith(NOTHING, all), undefined, 'packed'));
  const cleared = COLLECTIONS.filter((c) => c !== 'settings');
  const deletes = cleared.reduce((n, c) => (store.tabled.has(c) ? n : n + store.count(c)), 0);
  let counts: Record<string, number> = {};
  await store.loadMany(deletes + recordCount(all), (tx) => {
    for (const c of cleared) tx.clear(c);
    counts = putRecords(tx, all);
  });
  return counts;
}

/** What an import with --replace checks the fixtures against: nothing. */
const NOTHING: RecordLookup = { get: () => undefined };

/**
 * Fixture files into a PostgreSQL store in one bulk load (PgLog.bulkFrom), all or nothing. The
 * slow part takes no lock: the files are read and checked, their threads and the records kept in
 * tables copied as they are read into temporary tables on a reserved connection
 * (pg/table-import.ts), then moved into their tables by the load's transaction on that connection,
 * unseen by others until it commits. Only then does it take the write lock, to check again what
 * other processes may have written meanwhile (ids taken, records referred to and deleted) and put
 * the other records (users, workspaces, tokens, OAuth). `replace`: everything but the settings is
 * replaced by the fixtures (the tables built aside, swapped in under the lock).
 */
export async function importShared(
  store: Store,
  files: string[],
  opts: { replace?: boolean; checked?: (f: CheckedFixture) => void; batchRows?: number; also?: (tx: Tx) => void } = {},
): Promise<Record<string, number>> {
  // The database down while reading is a StoreUnavailableError, as it is under the lock (log.ts).
  const conn = await unavailable(() => store.shared!.sql.reserve());
  const tables = new TableImport(conn, streamedCollections(store), !!opts.replace, opts.batchRows);
  try {
    const read = await unavailable(async () => {
      await tables.open();
      return readAll(store, files, tables, opts);
    });
    let counts: Record<string, number> = {};
    await store
      .shared!.bulkFrom(
        async (sql) => {
          await tables.commit(sql);
          if (!opts.replace) await recheck(store, files, read);
          return (tx) => {
            // The tables the import swapped in hold what it streamed: clearing them would delete it.
            if (opts.replace)
              for (const c of COLLECTIONS)
                if (c !== 'settings' && !THREAD_COLLECTIONS.has(c) && !tables.takes(c)) tx.clear(c);
            counts = putRecords(tx, read.all);
            opts.also?.(tx);
          };
        },
        { on: conn, before: (sql) => tables.move(sql) },
      )
      .catch((err: unknown) => {
        throw isDeadlock(err) ? new ImportConflictError(files) : err;
      });
    await tables.analyzeMoved().catch(() => undefined);
    return counts;
  } finally {
    await tables.close().catch(() => undefined);
    conn.release();
  }
}

/**
 * PostgreSQL broke a deadlock between the import and another process's write of one of its threads
 * or records by aborting the import (pg/table-import.ts, move): nothing of it was written.
 */
export class ImportConflictError extends FixtureError {
  constructor(files: string[]) {
    super(files.join(', '), []);
    this.message =
      `Another process wrote a thread or record this import holds while the import committed (PostgreSQL aborted the import to end the wait between the two); nothing was imported. ` +
      `Run the import again: an id that is now taken will be named.`;
  }
}

/** A fixture file as read: its records, what passed its schema (the checks run again under the lock), its threads. */
interface ReadFiles {
  all: Records[];
  checked: CheckedFixture[];
  sinks: RecordSink[];
}

/**
 * Under the write lock, the checks across records again, against the store as it is now: a record
 * the files refer to that another process deleted while they were read, or an id it took, is
 * refused with the message the JSON store gives for it. Streamed records' ids need no check: the unique
 * index refused those taken before the move, and holds those moved.
 */
async function recheck(store: Store, files: string[], read: ReadFiles): Promise<void> {
  const existing = await held(store);
  read.checked.forEach((f, i) =>
    checkFixture(
      f,
      files[i],
      withSinks(lookupWith(existing, read.all.slice(0, i)), read.sinks.slice(0, i)),
      read.sinks[i],
    ),
  );
  await refuseTaken(
    store,
    files,
    read.all,
    FIXTURE_COLLECTIONS.filter((c) => c !== 'threads'),
  );
}

/** The files read and checked, their threads copied aside as they come: no lock is held. */
async function readAll(
  store: Store,
  files: string[],
  tables: TableImport,
  opts: { replace?: boolean; checked?: (f: CheckedFixture) => void },
): Promise<ReadFiles> {
  const existing = opts.replace ? NOTHING : await held(store);
  const read: ReadFiles = { all: [], checked: [], sinks: [] };
  const checked = (f: CheckedFixture) => {
    read.checked.push(f);
    opts.checked?.(f);
  };
  try {
    for (const file of files) {
      const sink = tables.file(file);
      read.sinks.push(sink);
      const before = withSinks(lookupWith(existing, read.all), read.sinks.slice(0, -1));
      read.all.push(await readFixtureFile(file, before, checked, sink));
    }
    await tables.finish();
  } catch (err) {
    await tables.abandon();
    throw err;
  }
  return read;
}

/** The collections an import into PostgreSQL streams into their tables: threads, and the areas' records kept in tables. */
function streamedCollections(store: Store): ReadonlySet<string> {
  return new Set(['threads', ...[...store.tabled].filter((c) => RECORD_TABLE_COLLECTIONS.has(c))]);
}

/** `lookup`, plus the records earlier files streamed into their tables (references across files). */
function withSinks(lookup: RecordLookup, sinks: RecordSink[]): RecordLookup {
  return { get: (c, id) => lookup.get(c, id) ?? (sinks.some((s) => s.takes(c) && s.has(c, id)) || undefined) };
}

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
