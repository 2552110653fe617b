import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { App } from '../../../src/server/app.js';
import { fileEngine, seedStore } from '../../support/seed-store.js';
import { threadContactPartitions } from '../../../src/store/indexes.js';
import { JsonEngine } from '../../../src/store/json/engine.js';
import type { ThreadRecord } from '../../../src/store/records.js';
import { readSnapshot } from '../../../src/store/json/snapshot.js';
import { encodeSnapshot } from '../../../src/store/json/snapshot-writer.js';
import { Store, StoreCorruptError } from '../../../src/store/json/store.js';
import { putThread } from '../../../src/store/threads.js';
import { deleteThread, getFullThread } from '../../support/threads.js';
import { eng, fixture, t, writeEngagementFixture } from '../../support/engagement.js';
import { sendJson } from '../../support/server.js';
import { crashCopy, listing, readSnapshotFile, useTempStores } from '../../support/store.js';

const stores = useTempStores();
const threads = `/v1/workspaces/${eng.wsA}/threads`;

/** A data file holding the engagement fixture, closed (so all of it is in the version 2 snapshot). */
async function seeded(): Promise<string> {
  const file = path.join(stores.dir, 'store.json');
  const s = await Store.open(file);
  await seedStore(s, [writeEngagementFixture(stores.dir)]);
  await s.close();
  return file;
}

async function list(store: Store, query = ''): Promise<string[]> {
  const res = await sendJson(new App({ db: fileEngine(store) }), { url: `${threads}${query}`, token: eng.token });
  expect(res.status).toBe(200);
  return res.json.data.map((x: { id: string }) => x.id);
}

describe('version 2 snapshot: threads and their messages load lazily', () => {
  it('lists, opens and pages threads after a restart exactly as before it', async () => {
    const file = await seeded();
    const s = await stores.open(file);
    // The fixture's documented order (test/support/engagement.ts).
    expect(await list(s)).toEqual([t(5), t(2), t(7), t(1), t(6)]);
    expect(await list(s, '?view=closed')).toEqual([t(4), t(3)]);
    expect(await list(s, '?channel=whatsapp')).toEqual([t(5), t(1)]);
    const one = await sendJson(new App({ db: fileEngine(s) }), { url: `${threads}/${t(1)}`, token: eng.token });
    expect(one.status).toBe(200);
    expect(one.json.data.messages.map((m: { body: string }) => m.body)).toEqual([
      'A mango question from earlier',
      'Parcel landed safely, thanks!',
    ]);
    expect(one.json.data).toMatchObject({
      message_count: 2,
      channels: ['email', 'whatsapp'],
      last_message_preview: 'Parcel landed safely, thanks!',
    });
  });

  it('writes the threads as lazy lines with index stubs, in index order, and the messages apart', async () => {
    const file = await seeded();
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(JSON.parse(lines[0])).toMatchObject({ format: 'wcm-store', version: 2 });
    const header = JSON.parse(lines.find((l) => l.startsWith('{"collection":"threads"'))!);
    // Stubs carry only what the indexes read, newest last message first (both workspaces together).
    expect(Object.keys(header.stubs[0]).sort()).toEqual([
      'channels',
      'contact',
      'id',
      'last_message_at',
      'starred',
      'status',
      'unread',
      'workspace_id',
    ]);
    expect(header.stubs.map((x: { id: string }) => x.id)).toEqual([t(8), t(5), t(4), t(2), t(7), t(1), t(3), t(6)]);
    const snap = readSnapshotFile(file);
    expect(snap.collections.threads.find((x) => x.id === t(1))).not.toHaveProperty('messages');
    expect(snap.collections.thread_messages.find((x) => x.id === t(1))).toMatchObject({
      messages: [{ channel: 'email' }, { channel: 'whatsapp' }],
    });
    // The end marker counts the collection sections, and ends the file.
    expect(lines.at(-2)).toBe(`{"end":${lines.filter((l) => l.startsWith('{"collection":')).length}}`);
    expect(lines.at(-1)).toBe('');
  });

  it('a data file whose thread stubs lack a member an index reads (the contact) builds the indexes from the records', async () => {
    const file = await seeded();
    const one = readSnapshotFile(file).collections.threads.find((x) => x.id === t(1)) as ThreadRecord;
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.startsWith('{"collection":"threads"'));
    const header = JSON.parse(lines[at]);
    header.stubs = header.stubs.map(({ contact: _, ...stub }: { contact: unknown }) => stub);
    lines[at] = JSON.stringify(header);
    writeFileSync(file, lines.join('\n'));
    const s = await stores.open(file);
    const [byId, byEmail] = threadContactPartitions(one.workspace_id, one.contact);
    const ids = (partition: string) =>
      new JsonEngine(s).read(async (tx) =>
        (await tx.page('threads', 'threadsByContact', { partition, limit: 10 })).items.map((x) => x.id),
      );
    expect(await ids(byId)).toContain(t(1));
    expect(await ids(byEmail)).toContain(t(1));
    expect(await list(s)).toEqual([t(5), t(2), t(7), t(1), t(6)]);
  });

  it('threads by contact, first read after writes, after a restart and after a crash, answers as an index built with every write', async () => {
    const file = await seeded();
    const before = readSnapshotFile(file).collections.threads as ThreadRecord[];
    /** Every partition any thread had or has, each with its threads as the index orders them. */
    const expected = (store: Store): Map<string, string[]> => {
      const out = new Map<string, ThreadRecord[]>();
      for (const x of before) for (const p of threadContactPartitions(x.workspace_id, x.contact)) out.set(p, []);
      for (const id of store.ids('threads')) {
        const x = store.get('threads', id)!;
        for (const p of threadContactPartitions(x.workspace_id, x.contact)) out.set(p, [...(out.get(p) ?? []), x]);
      }
      const desc = (a: ThreadRecord, b: ThreadRecord) =>
        a.last_message_at === b.last_message_at
          ? a.id < b.id
            ? 1
            : -1
          : (a.last_message_at ?? '') < (b.last_message_at ?? '')
            ? 1
            : -1;
      return new Map([...out].map(([p, xs]) => [p, xs.sort(desc).map((x) => x.id)]));
    };
    const answered = async (store: Store, partitions: Iterable<string>): Promise<Map<string, string[]>> => {
      const out = new Map<string, string[]>();
      for (const partition of partitions)
        out.set(
          partition,
          await new JsonEngine(store).read(async (tx) =>
            (await tx.page('threads', 'threadsByContact', { partition, limit: 100 })).items.map((x) => x.id),
          ),
        );
      return out;
    };
    const check = async (store: Store) => {
      const want = expected(store);
      expect(await answered(store, want.keys())).toEqual(want);
    };

    const s = await stores.open(file);
    // Writes before the index's first read: a contact's new address, a deletion, a new thread.
    const seven = getFullThread(s, t(7))!;
    await s.transact((tx) => putThread(tx, { ...seven, contact: { ...seven.contact, email: 'Moved@Example.com' } }));
    await s.transact((tx) => deleteThread(tx, t(3)));
    const one = getFullThread(s, t(1))!;
    await s.transact((tx) => putThread(tx, { ...one, id: 'new-thread' }));
    await check(s);
    // Built now: kept up to date by the writes after, and by a write and a read in one transaction.
    await s.transact((tx) => putThread(tx, { ...getFullThread(tx, t(7))!, contact: { ...one.contact } }));
    const seen = await new JsonEngine(s).write(async (tx) => {
      await tx.put('threads', { ...(await tx.get('threads', t(2)))!, contact: { ...one.contact } });
      const [byId] = threadContactPartitions(one.workspace_id, one.contact);
      return (await tx.page('threads', 'threadsByContact', { partition: byId, limit: 100 })).items.map((x) => x.id);
    });
    expect(seen).toContain(t(2));
    await check(s);

    // Recovery replays the journal over the snapshot's stubs; the index is built on its first read.
    const crashed = await stores.open(crashCopy(file));
    await check(crashed);
    await crashed.close();
    await s.close();
    const again = await stores.open(file);
    await check(again);
  });

  it('moves a thread that was never read when it is written after a restart, and keeps it through a crash and a compaction', async () => {
    const file = await seeded();
    const s = await stores.open(file);
    // t(7) and t(3) are still unparsed stubs in the index: the writes must find and replace them.
    await s.transact((tx) => putThread(tx, { ...getFullThread(tx, t(7))!, status: 'closed' }));
    await s.transact((tx) => deleteThread(tx, t(3)));
    expect(await list(s, '?view=closed')).toEqual([t(4), t(7)]);
    expect(await list(s)).toEqual([t(5), t(2), t(1), t(6)]);

    // Recovery replays the journal over the lazy snapshot.
    const crashed = await stores.open(crashCopy(file));
    expect(await list(crashed, '?view=closed')).toEqual([t(4), t(7)]);
    expect(crashed.get('threads', t(3))).toBeUndefined();
    expect(crashed.get('thread_messages', t(3))).toBeUndefined();
    await crashed.close();

    // Compaction copies unread records' bytes and writes the changed ones.
    await s.close();
    const again = await stores.open(file);
    expect(await list(again, '?view=closed')).toEqual([t(4), t(7)]);
    expect(await list(again)).toEqual([t(5), t(2), t(1), t(6)]);
    expect(getFullThread(again, t(1))!.messages).toHaveLength(2);
  });

  it('a page read after a thread it listed is rewritten in place shows the new record, and after a rolled-back write the old one', async () => {
    const file = await seeded();
    const s = await stores.open(file);
    const app = new App({ db: fileEngine(s) });
    const starred = async () => {
      const res = await sendJson(app, { url: threads, token: eng.token });
      expect(res.status).toBe(200);
      return res.json.data.map((x: { id: string; starred: boolean }) => [x.id, x.starred]);
    };
    const before = await starred();
    expect(before.map((x: [string, boolean]) => x[0])).toEqual([t(5), t(2), t(7), t(1), t(6)]);
    const was = getFullThread(s, t(2))!.starred;
    // Same sort key and partitions: the index entry is replaced by the written record in place.
    await s.transact((tx) => putThread(tx, { ...getFullThread(tx, t(2))!, starred: !was }));
    expect(await starred()).toEqual(before.map(([id, v]: [string, boolean]) => [id, id === t(2) ? !was : v]));
    await expect(
      s.transact((tx) => {
        putThread(tx, { ...getFullThread(tx, t(2))!, starred: was });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await starred()).toEqual(before.map(([id, v]: [string, boolean]) => [id, id === t(2) ? !was : v]));
  });

  it('exports the same fixture before and after a restart', async () => {
    const { exportFixture } = await import('../../../src/store/fixtures/import.js');
    const file = await seeded();
    const a = await stores.open(path.join(stores.dir, 'fresh.json'));
    await seedStore(a, [writeEngagementFixture(stores.dir)]);
    const b = await stores.open(file);
    expect(JSON.stringify(exportFixture(b))).toBe(JSON.stringify(exportFixture(a)));
    const exported = exportFixture(b) as { threads: Array<{ id: string; messages: unknown[] }> };
    expect(exported.threads.find((x) => x.id === t(1))!.messages).toEqual(
      fixture.threads
        .find((x) => x.id === t(1))!
        .messages.map((m) => ({ ...m, created_at: new Date(m.created_at).toISOString() })),
    );
  });

  it('names the damaged record when a lazy line does not parse, and refuses a file whose lines are cut', async () => {
    const file = await seeded();
    const text = readFileSync(file, 'utf8');
    const i = text.indexOf('"body":"Parcel landed');
    writeFileSync(file, `${text.slice(0, i)}"body":Parcel${text.slice(i + 14)}`);
    const s = await stores.open(file);
    expect(await list(s, '?view=closed')).toEqual([t(4), t(3)]);
    expect(() => s.get('thread_messages', t(1))).toThrow(StoreCorruptError);
    expect(() => s.get('thread_messages', t(1))).toThrow(
      new RegExp(`damaged: record \`${t(1)}\` of thread_messages is not valid JSON`),
    );
    await s.close();

    writeFileSync(file, text.replace(/\t/, ' '));
    await expect(Store.open(file)).rejects.toThrow(/is damaged: a record of `threads` is malformed/);
    writeFileSync(file, text.slice(0, text.lastIndexOf('{"end"')));
    await expect(Store.open(file)).rejects.toThrow(/is damaged: it ends before its end marker/);
    writeFileSync(file, text.replace('"version":2', '"version":3'));
    await expect(Store.open(file)).rejects.toThrow(/written by a newer wcm \(data format version 3/);
  });
});

describe('version 1 data files', () => {
  it('still load: threads with inline messages are split, in the snapshot and in the journal', async () => {
    const file = path.join(stores.dir, 'v1.json');
    const [thread1, ...rest] = fixture.threads;
    const collections = {
      users: fixture.users,
      workspaces: fixture.workspaces,
      tokens: [],
      threads: rest,
    };
    writeFileSync(file, JSON.stringify({ format: 'wcm-store', version: 1, seq: 1, collections }));
    // A v1 journal line (CRC32 of the JSON, then the JSON) adding the remaining thread.
    const { crc32 } = await import('node:zlib');
    const json = JSON.stringify({ s: 2, o: [['threads', thread1.id, thread1]] });
    writeFileSync(`${file}.journal`, `${crc32(json).toString(16).padStart(8, '0')} ${json}\n`);
    const s = await stores.open(file);
    expect(s.count('threads')).toBe(fixture.threads.length);
    expect(s.get('threads', t(1))).toMatchObject({
      message_count: 2,
      channels: ['email', 'whatsapp'],
      last_message_at: '2025-03-01T11:00:00Z',
    });
    expect(getFullThread(s, t(5))!.messages).toHaveLength(1);
    expect([...s.index('threadsByFilter').entries(`${eng.wsA}|inbox|whatsapp`)].map((e) => e.rec.id)).toEqual([
      t(5),
      t(1),
    ]);
    await s.close();
    expect(readSnapshotFile(file).version).toBe(2);
  });
});

describe('compaction', () => {
  it('answers reads while it encodes, holds writes until it is done, and loses none of them', async () => {
    const file = path.join(stores.dir, 'big.json');
    const s = await stores.open(file);
    await s.transact((tx) => {
      for (let i = 1; i <= 60_000; i++) tx.put('listings', listing(i));
    });
    const events: string[] = [];
    const compaction = s.compact().then(() => events.push('compacted'));
    // The next turn of the event loop comes while the snapshot is still being encoded.
    const read = await new Promise((r) => setImmediate(() => r(s.get('listings', listing(7).id)?.title)));
    events.push(`read ${read}`);
    const write = s.transact((tx) => tx.put('listings', listing(60_001))).then(() => events.push('written'));
    await Promise.all([compaction, write]);
    expect(events).toEqual(['read L7', 'compacted', 'written']);
    // The write went to the journal after it was emptied: a crash now keeps it.
    const crashed = await stores.open(crashCopy(file));
    expect(crashed.count('listings')).toBe(60_001);
    expect(readSnapshotFile(file).collections.listings).toHaveLength(60_000);
  });
});

describe('encodeSnapshot', () => {
  it('writes a collection of 200,000 lazy records (more than a call takes arguments) and reads it back', async () => {
    const recs = Array.from(
      { length: 200_000 },
      (_, i) => [`id${i}`, { id: `id${i}`, messages: [] }] as [string, unknown],
    );
    const buf = Buffer.concat(await encodeSnapshot(7, [{ collection: 'thread_messages', lazy: recs }]));
    let n = 0;
    let last = '';
    expect(
      readSnapshot(buf, { record() {}, lazy: (_c, _b, ids) => ((n = ids.length), (last = ids[ids.length - 1])) }),
    ).toBe(7);
    expect([n, last]).toEqual([200_000, 'id199999']);
  });

  it('yields to the event loop while it encodes a big store', async () => {
    const records = Array.from({ length: 100_000 }, (_, i) => listing(i + 1));
    const events: string[] = [];
    const encoding = encodeSnapshot(1, [{ collection: 'listings', records }], 1).then(() => events.push('encoded'));
    setImmediate(() => events.push('event loop turn'));
    await encoding;
    expect(events).toEqual(['event loop turn', 'encoded']);
  });
});
