// `wcm local import --store URL` streams the areas' records (bookings, knowledge, commerce…) as it
// streams threads: checked as they are read, copied by COPY in batches into temporary tables
// (wcm_records_import, wcm_record_keys_import), moved into wcm_records and wcm_record_keys before the
// write lock, or with --replace built aside and swapped in (src/store/pg/table-import.ts,
// import-file.ts, table-swap.ts). The cases of pg-import.test.ts, for records: nothing visible
// before the commit, the JSON store's messages, references checked again under the lock, a failure
// imports nothing, the deadlock, --replace.
import { mkdtempSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportText, FixtureError } from '../../src/store/fixture.js';
import { KEY_COLUMNS, keyRows, RECORD_COLUMNS, recordRow } from '../../src/store/pg/records.js';
import { SWAP_MIN_ROWS } from '../../src/store/pg/table-swap.js';
import type { BookingRecord } from '../../src/store/records.js';
import { ImportConflictError, importShared, seedStore } from '../../src/store/seed.js';
import { Store } from '../../src/store/store.js';
import { BATCH, N, sleep, usePgImport, uuid, within10s, WS } from '../support/pg-import.js';

const LIST = '00000000-0000-4000-8000-0000000000b1';

function booking(i: number, over: Partial<BookingRecord> = {}): BookingRecord {
  const at = (h: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000 + h * 3_600_000).toISOString();
  return {
    id: uuid(i),
    workspace_id: WS,
    status: i % 3 ? 'confirmed' : 'cancelled',
    booking_type: { id: uuid(i % 7, 'd'), name: `Class\t${i % 7}` },
    contact: { name: `Guest ${i}`, email: `g${i}@example.com` },
    starts_at: at(0),
    ends_at: at(1),
    timezone: 'Europe/London',
    ...over,
  } as BookingRecord;
}

const article = (i: number, list = LIST) => ({
  id: uuid(i, 'e'),
  list_id: list,
  versions: [2, 1].map((n) => ({
    number: n,
    title: `Article ${i}`,
    body: `Version ${n}`,
    published: true,
    created_at: '2026-03-01T09:00:00Z',
  })),
});

/** The workspace and the knowledge list are in db.baseFile. */
const db = usePgImport({
  dirPrefix: 'wcm-pg-import-records-',
  base: {
    workspaces: [{ id: WS, name: 'Acme', stripe_account_id: null, members: [] }],
    knowledge_lists: [{ id: LIST, workspace_id: WS, name: 'Help' }],
  },
  counted: 'wcm_records',
  aside: 'wcm_record%_import',
});
const { fixture, rowsInserted, waitingOn, waitingOnRows, jsonMessage, importThroughPipe } = db;

async function joined(parts: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const p of parts) text += p;
  return text;
}

/** The JSON store's export after importing `files` (then `then`). */
async function jsonExport(files: string[], then?: (s: Store) => Promise<unknown>): Promise<string> {
  const json = await Store.open(path.join(mkdtempSync(path.join(db.dir, 'json-')), 'store.json'));
  try {
    await seedStore(json, files);
    await then?.(json);
    return await joined(exportText(json));
  } finally {
    await json.close();
  }
}

const pgExport = async () => await joined(exportText(db.other));

/** A copy of `b` written by another process in the same transaction as nothing else. */
const putBooking = (s: Store, b: BookingRecord) => s.transact((tx) => void tx.put('bookings', b));

describe('an import of records into PostgreSQL streams them through tables aside', () => {
  it('refuses, with the JSON store’s message, problems found after a batch was copied aside, and writes nothing', async () => {
    const bookings = Array.from({ length: N }, (_, i) => booking(i));
    bookings[N - 2] = booking(N - 2, { workspace_id: uuid(9, 'f') });
    bookings[N - 1] = booking(7);
    const members = { bookings, articles: [article(1), article(2, uuid(8, 'f'))] };
    const { aside, fifo, copy, result } = await importThroughPipe(members, { base: true });
    expect(aside).toBe(true);
    expect(result).toBeInstanceOf(FixtureError);
    expect((result as FixtureError).problems).toEqual([
      { path: `$.bookings[${N - 1}].id`, message: `duplicate id \`${uuid(7)}\` (also at $.bookings[7].id)` },
      {
        path: `$.bookings[${N - 2}].workspace_id`,
        message: `refers to workspaces \`${uuid(9, 'f')}\`, which does not exist`,
      },
      { path: '$.articles[1].list_id', message: `refers to knowledge_lists \`${uuid(8, 'f')}\`, which does not exist` },
    ]);
    expect((result as FixtureError).message.replace(fifo, copy)).toBe(await jsonMessage([db.baseFile, copy]));
    // The batch went aside, never into wcm_records.
    expect(await rowsInserted()).toBe(0);
    expect(await db.other.records.size('bookings')).toBe(0);
    expect(await db.other.records.size('knowledge_lists')).toBe(0);
  });

  it('imports every record while another process writes, unseen until the commit, and exports as the JSON store does', async () => {
    const bookings = Array.from({ length: N }, (_, i) => booking(i));
    // An article naming the list of the file before it (db.baseFile), one naming a list of its own file.
    const members = {
      bookings,
      knowledge_lists: [{ id: uuid(3, 'b'), workspace_id: WS, name: 'Own' }],
      articles: [article(1), article(2, uuid(3, 'b'))],
    };
    let seenDuring = -1;
    const rename = (s: Store) =>
      s.transact((tx) => tx.put('workspaces', { ...tx.get('workspaces', WS)!, name: 'New' }));
    const { aside, stillReading, copy, result } = await importThroughPipe(members, {
      base: true,
      // (The workspace is the import's: written once the import committed.)
      after: async () => {
        seenDuring = await db.other.records.size('bookings');
      },
    });
    expect(aside).toBe(true);
    expect(stillReading).toBe(true);
    expect(seenDuring).toBe(0);
    expect(result).toEqual({ workspaces: 1, knowledge_lists: 2, bookings: N, articles: 2 });
    await rename(db.other);
    expect(await pgExport()).toBe(await jsonExport([db.baseFile, copy], rename));
    // Each record's first position follows the file: the order of a collection without a key.
    const pos = await db.raw`select id from wcm_records where collection = 'bookings' order by pos`;
    expect(pos.map((r) => r.id)).toEqual(bookings.map((b) => b.id));
  });

  it('refuses an id another process took while it read, and ids the table held, in the JSON store’s order', async () => {
    const size = await db.other.records.size('bookings');
    const bookings = Array.from({ length: N }, (_, i) => booking(10_000 + i));
    // Booking 0 was copied aside (and found free) before another process writes the same id.
    const { aside, stillReading, fifo, copy, result } = await importThroughPipe(
      { bookings },
      { during: () => putBooking(db.other, bookings[0]) },
    );
    expect(aside).toBe(true);
    expect(stillReading).toBe(true);
    expect((result as FixtureError).problems).toEqual([
      { path: '$.bookings[0].id', message: `id \`${bookings[0].id}\` already exists in the store` },
    ]);
    const sneak = fixture({ bookings: [bookings[0]] });
    expect((result as FixtureError).message.replace(fifo, copy)).toBe(await jsonMessage([copy], [db.baseFile, sneak]));
    // The one booking written meanwhile, none of the import's (its move failed on booking 0).
    expect(await db.other.records.size('bookings')).toBe(size + 1);
    expect(await db.other.records.get('bookings', bookings[1].id)).toBeUndefined();

    // Ids imported before, in the last batch and past the bookings: listed as the JSON store lists them.
    const before = await rowsInserted();
    const held = bookings.slice(1);
    held[N - 3] = booking(4);
    const file = fixture({ bookings: held, articles: [article(1)] });
    const err = (await importShared(db.pg, [file], { batchRows: BATCH }).catch((e: unknown) => e)) as FixtureError;
    expect(err.problems).toEqual([
      { path: '$.articles[0].id', message: `id \`${uuid(1, 'e')}\` already exists in the store` },
      { path: `$.bookings[${N - 3}].id`, message: `id \`${uuid(4)}\` already exists in the store` },
    ]);
    const seeded = fixture({ bookings: [booking(4)], articles: [article(1)] });
    expect(err.message).toBe(await jsonMessage([file], [db.baseFile, seeded]));
    expect(await rowsInserted()).toBe(before);
  });

  it('refuses an article whose list another process deleted while it read, and changes nothing', async () => {
    const gone = uuid(5, 'b');
    await db.other.transact((tx) => void tx.put('knowledge_lists', { id: gone, workspace_id: WS, name: 'Soon gone' }));
    const size = await db.other.records.size('bookings');
    const bookings = Array.from({ length: N }, (_, i) => booking(20_000 + i));
    const members = { articles: [article(9, gone)], bookings };
    const { aside, fifo, copy, result } = await importThroughPipe(members, {
      during: () => db.other.transact((tx) => tx.delete('knowledge_lists', gone)),
    });
    expect(aside).toBe(true);
    expect((result as FixtureError).problems).toEqual([
      { path: '$.articles[0].list_id', message: `refers to knowledge_lists \`${gone}\`, which does not exist` },
    ]);
    expect((result as FixtureError).message.replace(fifo, copy)).toBe(await jsonMessage([copy], [db.baseFile]));
    expect(await db.other.records.size('bookings')).toBe(size);
  });
});

describe('an import of records into PostgreSQL holds the write lock only after moving them', () => {
  /** Another transaction inserts (uncommitted) the last booking: the import's move waits for it, without the write lock. */
  const importBlockedInMove = (bookings: BookingRecord[], during: () => Promise<unknown>) =>
    db.importBlockedInMove(
      fixture({ bookings }),
      async (blocker) => {
        const last = bookings.at(-1)!;
        await blocker`insert into wcm_records ${blocker(recordRow('bookings', last), ...RECORD_COLUMNS)}`;
        await blocker`insert into wcm_record_keys ${blocker(keyRows('bookings', last), ...KEY_COLUMNS)}`;
      },
      during,
    );

  it('lets another process write during the move: its write commits before the import does', async () => {
    const bookings = Array.from({ length: N }, (_, i) => booking(30_000 + i));
    const size = await db.other.records.size('bookings');
    let seenDuring = -1;
    const { order, result } = await importBlockedInMove(bookings, async () => {
      await putBooking(db.other, booking(39_999));
      seenDuring = await db.other.records.size('bookings');
    });
    expect(order).toEqual(['during', 'import']);
    expect(result).toEqual({ bookings: N });
    expect(seenDuring).toBe(size + 1);
    expect(await db.other.records.size('bookings')).toBe(size + 1 + N);
    expect(await db.other.records.get('bookings', bookings[N - 1].id)).toEqual(bookings[N - 1]);
  });

  it('makes another import of a booking id it moved wait, then refuse it with the JSON store’s message', async () => {
    const bookings = Array.from({ length: N }, (_, i) => booking(45_000 + i));
    const sneak = fixture({ bookings: [bookings[0]] });
    let sneaking: Promise<unknown> = Promise.resolve();
    const { result } = await importBlockedInMove(bookings, async () => {
      // Its lookup finds the id free (the move is not committed); its own move waits on the unique index.
      sneaking = importShared(db.other, [sneak]).catch((e: unknown) => e);
      await waitingOnRows(2);
    });
    expect(result).toEqual({ bookings: N });
    const err = (await sneaking) as FixtureError;
    expect(err).toBeInstanceOf(FixtureError);
    expect(err.problems).toEqual([
      { path: '$.bookings[0].id', message: `id \`${bookings[0].id}\` already exists in the store` },
    ]);
    expect(err.message).toBe(await jsonMessage([sneak], [db.baseFile, fixture({ bookings: bookings.slice(0, 1) })]));
    expect(await db.other.records.get('bookings', bookings[0].id)).toEqual(bookings[0]);
  });

  it('fails clearly, writing nothing, when another process writes a booking it moved and PostgreSQL aborts it', async () => {
    const bookings = Array.from({ length: N }, (_, i) => booking(40_000 + i));
    const size = await db.other.records.size('bookings');
    const mine = booking(40_000, { timezone: 'Europe/Paris' });
    const [{ ms }] = await db.raw`select setting::int as ms from pg_settings where name = 'deadlock_timeout'`;
    let writing: Promise<unknown> = Promise.resolve();
    const { result } = await importBlockedInMove(bookings, async () => {
      writing = putBooking(db.other, mine);
      await waitingOnRows(2);
      await sleep(Number(ms) + 300);
    });
    expect(result).toBeInstanceOf(ImportConflictError);
    expect((result as Error).message).toMatch(
      /Another process wrote a thread or record this import holds.*nothing was imported/s,
    );
    await writing;
    expect(await db.other.records.size('bookings')).toBe(size + 1);
    expect(await db.other.records.get('bookings', mine.id)).toEqual(mine);
    expect(await db.other.records.get('bookings', bookings[1].id)).toBeUndefined();
  });
});

describe('an import of records into PostgreSQL with replace', () => {
  const tables = ['wcm_records', 'wcm_record_keys'];
  const indexes = () =>
    db.raw`select tablename, indexname, indexdef from pg_indexes
      where schemaname = current_schema() and tablename = any(${tables}) order by 1, 2`;
  const oids = async () =>
    (await db.raw`select relname, oid from pg_class where relname = any(${tables}) order by 1`).map((r) => r.oid);

  it('builds both tables aside while another process writes, swaps them in under the lock, and keeps them writable', async () => {
    const before = await indexes();
    const [{ seq }] = await db.raw`select pg_get_serial_sequence('wcm_records', 'pos') as seq`;
    const old = await oids();
    const bookings = Array.from({ length: N }, (_, i) => booking(50_000 + i));
    const order: string[] = [];
    const blocker = await db.conns.reserve();
    let copy: string;
    try {
      const run = await importThroughPipe(
        { bookings, articles: [article(3)] },
        {
          base: true,
          replace: true,
          order,
          // Creating (uncommitted) the table the replace builds aside: it waits for that name as it
          // builds, without the write lock. (Not a lock on wcm_records: a write of a workspace
          // names that table too, one-trip.ts.)
          during: async () => {
            await blocker`begin`;
            await blocker`create table wcm_records_next (x int)`;
          },
          after: async () => {
            await waitingOn('transactionid');
            await within10s(
              db.other
                .transact((tx) => tx.put('workspaces', { ...tx.get('workspaces', WS)!, name: 'During' }))
                .finally(() => order.push('write')),
            );
            await blocker`rollback`;
          },
        },
      );
      copy = run.copy;
      expect(run.result).toEqual({ workspaces: 1, knowledge_lists: 1, bookings: N, articles: 1 });
    } finally {
      await blocker`rollback`.catch(() => undefined);
      blocker.release();
    }
    expect(order).toEqual(['write', 'import']);
    // New tables, the same indexes under the same names, the identity's sequence under its name.
    const now = await oids();
    expect(now[0]).not.toBe(old[0]);
    expect(now[1]).not.toBe(old[1]);
    expect(await indexes()).toEqual(before);
    expect((await db.raw`select pg_get_serial_sequence('wcm_records', 'pos') as seq`)[0].seq).toBe(seq);
    expect((await db.raw`select to_regclass('wcm_records_next') as t`)[0].t).toBeNull();
    await db.other.sync();
    expect(await pgExport()).toBe(await jsonExport([db.baseFile, copy]));
    // A write of a booking upserts on the new primary key, and pages along the new keys.
    const changed = { ...bookings[5], timezone: 'Asia/Tokyo' };
    await putBooking(db.other, changed);
    await putBooking(db.other, booking(59_999));
    expect(await db.pg.records.get('bookings', changed.id)).toEqual(changed);
    expect(await db.pg.records.size('bookings')).toBe(N + 1);
    expect(await db.pg.records.count('bookingsByWorkspace', WS)).toBe(N + 1);

    // A reader holding wcm_records past 2 s: its rows are copied over instead (the same table stays).
    const kept = await oids();
    const again = Array.from({ length: SWAP_MIN_ROWS }, (_, i) => booking(70_000 + i));
    const reader = await db.conns.reserve();
    try {
      await reader`begin`;
      await reader`select count(*) from wcm_records`;
      const file = fixture({ bookings: again });
      expect(await importShared(db.pg, [db.baseFile, file], { replace: true })).toEqual({
        workspaces: 1,
        knowledge_lists: 1,
        bookings: SWAP_MIN_ROWS,
      });
    } finally {
      await reader`rollback`;
      reader.release();
    }
    expect((await oids())[1]).toBe(kept[1]);
    expect((await db.raw`select to_regclass('wcm_records_next') as t`)[0].t).toBeNull();
    expect(await db.other.records.size('bookings')).toBe(SWAP_MIN_ROWS);
    expect(await db.other.records.get('bookings', again.at(-1)!.id)).toEqual(again.at(-1));
    expect(await db.other.records.count('bookingsByWorkspace', WS)).toBe(SWAP_MIN_ROWS);
    expect(await db.other.records.size('articles')).toBe(0);
  });
});
