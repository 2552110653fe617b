import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importRecords, parseFixture } from '../../../src/store/fixtures/import.js';
import { nodeFileLayer, type FileLayer } from '../../../src/store/json/files.js';
import { readSnapshot } from '../../../src/store/json/snapshot.js';
import { encodeSnapshot, snapshotChunks } from '../../../src/store/json/snapshot-writer.js';
import { BULK_RECORDS } from '../../../src/store/json/store.js';
import { generateThreads } from '../../support/generate-threads.mjs';
import { DEMO } from '../../support/server.js';
import { crashCopy, listing, listingTitles, readSnapshotFile, useTempStores } from '../../support/store.js';

// Bulk loads (seed, import, reset) are written as the store's snapshot, never as one giant journal
// line (docs/server.md, bulk loads).

const stores = useTempStores();
const titles = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `L${from + i}`);
const journalBytes = (file: string) =>
  existsSync(`${file}.journal`) ? readFileSync(`${file}.journal`).toString('latin1').replace(/\0+$/, '').length : 0;

/** The node file layer; the snapshot's atomic write or the journal's truncate can be made to fail once. */
function faultyLayer(): FileLayer & { failSnapshot: 'before-rename' | 'after-rename' | null } {
  const layer = {
    failSnapshot: null as 'before-rename' | 'after-rename' | null,
    openJournal: nodeFileLayer.openJournal,
    readIfExists: nodeFileLayer.readIfExists,
    writeAtomic: async (file: string, data: Parameters<FileLayer['writeAtomic']>[1]) => {
      const fault = file.endsWith('.journal') ? null : layer.failSnapshot;
      layer.failSnapshot = null;
      // A crash before the rename: the bytes streamed to the temp file, never renamed over the snapshot.
      if (fault === 'before-rename') {
        await nodeFileLayer.writeAtomic(`${file}.crashed-tmp`, data);
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      await nodeFileLayer.writeAtomic(file, data);
      if (fault === 'after-rename') throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    },
  };
  return layer;
}

describe('Store.bulk', () => {
  it('writes the load as the snapshot and leaves the journal empty; a restart reads it back', async () => {
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file);
    for (let n = 1; n <= 3; n++) await s.transact((tx) => tx.put('listings', listing(n)));
    expect(journalBytes(file)).toBeGreaterThan(0);
    await s.bulk((tx) => {
      for (let n = 4; n <= 5000; n++) tx.put('listings', listing(n));
    });
    expect(journalBytes(file)).toBe(0);
    const snap = readSnapshotFile(file);
    expect(snap.collections.listings).toHaveLength(5000);
    expect(snap.seq).toBe(4);
    // The indexes were rebuilt: every listing is in its workspace's index, newest first.
    const indexed = [...s.index('listingsByWorkspace').all()];
    expect(indexed).toHaveLength(5000);
    expect(indexed[0].title).toBe('L5000');
    // A write after it is journaled with the next sequence number, and survives a crash.
    await s.transact((tx) => tx.put('listings', listing(5001)));
    expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(titles(1, 5001));
  });

  it('a failure before the rename leaves the old store on disk and in memory, and later writes go on', async () => {
    const files = faultyLayer();
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file, { files });
    for (let n = 1; n <= 3; n++) await s.transact((tx) => tx.put('listings', listing(n)));
    files.failSnapshot = 'before-rename';
    await expect(
      s.bulk((tx) => {
        for (let n = 4; n <= 2000; n++) tx.put('listings', listing(n));
      }),
    ).rejects.toThrow(/ENOSPC/);
    // The crash's files: the old snapshot (none) and the whole journal; the new bytes were only in a temp file.
    expect(statSync(`${file}.crashed-tmp`).size).toBeGreaterThan(2000 * 100);
    expect(listingTitles(await stores.open(crashCopy(file, 'crash-before.json')))).toEqual(titles(1, 3));
    expect(listingTitles(s)).toEqual(titles(1, 3));
    await s.transact((tx) => tx.put('listings', listing(4)));
    await s.close();
    expect(listingTitles(await stores.open(file))).toEqual(titles(1, 4));
  });

  it('a failure after the rename leaves the new store whole, the old journal lines skipped', async () => {
    const files = faultyLayer();
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file, { files });
    for (let n = 1; n <= 3; n++) await s.transact((tx) => tx.put('listings', listing(n)));
    files.failSnapshot = 'after-rename';
    await expect(
      s.bulk((tx) => {
        for (const id of s.ids('listings')) tx.delete('listings', id);
        for (let n = 10; n <= 2000; n++) tx.put('listings', listing(n));
      }),
    ).rejects.toThrow(/EIO/);
    // The journal still holds L1..L3 (never emptied), but the snapshot's sequence number is past them.
    expect(journalBytes(file)).toBeGreaterThan(0);
    expect(listingTitles(await stores.open(crashCopy(file, 'crash-after.json')))).toEqual(titles(10, 2000));
    // The store read the disk back: what it serves is what a restart finds.
    expect(listingTitles(s)).toEqual(titles(10, 2000));
  });

  it('transactions arriving during the load are applied after it and journaled once it is durable', async () => {
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file);
    await s.transact((tx) => tx.put('listings', listing(1)));
    let during: Promise<unknown> | undefined;
    await s.bulk((tx) => {
      for (let n = 2; n <= 3000; n++) tx.put('listings', listing(n));
      // Next turn of the event loop: the snapshot is being written.
      setImmediate(() => (during = s.transact((t) => t.put('listings', listing(3001)))));
    });
    expect(during).toBeDefined();
    await during;
    expect(readSnapshotFile(file).collections.listings).toHaveLength(3000);
    const journal = readFileSync(`${file}.journal`, 'utf8').replace(/\0+$/, '').trim().split('\n');
    expect(journal).toHaveLength(1);
    expect(JSON.parse(journal[0].slice(9)).s).toBe(readSnapshotFile(file).seq + 1);
    expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(titles(1, 3001));
  });

  it('a fixture import above BULK_RECORDS takes the bulk path; a small one is one journal line', async () => {
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file);
    await importRecords(s, parseFixture(JSON.parse(readFileSync(DEMO, 'utf8')), 'demo.json'));
    expect(journalBytes(file)).toBeGreaterThan(0);
    const demoThreads = s.count('threads');
    const fixture = generateThreads({ count: BULK_RECORDS });
    await importRecords(s, parseFixture(fixture, 'threads.json', s));
    expect(journalBytes(file)).toBe(0);
    expect(new Set([...s.index('threadsByFilter').all()].map((t) => t.id)).size).toBe(BULK_RECORDS + demoThreads);
    await s.close();
    const again = await stores.open(file);
    expect(again.count('threads')).toBe(BULK_RECORDS + demoThreads);
    expect(again.get('thread_messages', fixture.threads[0].id)?.messages).toEqual(fixture.threads[0].messages);
  });
});

describe('Store.restore (a named snapshot swapped in)', () => {
  /** A saved snapshot of listings `from`..`to`, written by another store. */
  async function savedListings(from: number, to: number): Promise<Buffer> {
    const src = await stores.open(path.join(stores.dir, 'source.json'));
    await src.bulk((tx) => {
      for (let n = from; n <= to; n++) tx.put('listings', listing(n));
    });
    const saved = path.join(stores.dir, 'saved.json');
    await src.writeCopy(saved, new Set(['listings']));
    return readFileSync(saved);
  }

  it.each([
    ['before-rename', /ENOSPC/, titles(1, 3)],
    ['after-rename', /EIO/, titles(10, 2000)],
  ] as const)(
    'a failure %s leaves the old state or the new one, on disk and in memory alike',
    async (fault, error, expected) => {
      const saved = await savedListings(10, 2000);
      const files = faultyLayer();
      const file = path.join(stores.dir, 'store.json');
      const s = await stores.open(file, { files });
      for (let n = 1; n <= 3; n++) await s.transact((tx) => tx.put('listings', listing(n)));
      files.failSnapshot = fault;
      await expect(s.restore(saved, ['settings'])).rejects.toThrow(error);
      expect(listingTitles(s)).toEqual(expected);
      expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(expected);
    },
  );

  it('a small one is one journal line, the snapshot file untouched', async () => {
    const saved = await savedListings(10, 12);
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file);
    await s.bulk((tx) => {
      for (let n = 1; n <= 2; n++) tx.put('listings', listing(n));
    });
    const snapshot = readFileSync(file);
    await s.restore(saved, ['settings']);
    expect(listingTitles(s)).toEqual(titles(10, 12));
    expect(readFileSync(file)).toEqual(snapshot);
    expect(readFileSync(`${file}.journal`, 'utf8').replace(/\0+$/, '').trim().split('\n')).toHaveLength(1);
    expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(titles(10, 12));
  });

  it('keeps the records of `keep`; transactions arriving meanwhile are applied after it and journaled', async () => {
    const saved = await savedListings(10, 2000);
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file);
    await s.transact((tx) => {
      tx.put('listings', listing(1));
      tx.put('settings', { id: 'kept', value: 1 });
    });
    let during: Promise<unknown> | undefined;
    const restoring = s.restore(saved, ['settings']);
    setImmediate(() => (during = s.transact((tx) => tx.put('listings', listing(2001)))));
    await restoring;
    await during;
    expect(listingTitles(s)).toEqual(titles(10, 2001));
    expect(s.get('settings', 'kept')).toEqual({ id: 'kept', value: 1 });
    expect([...s.index('listingsByWorkspace').all()][0].title).toBe('L2001');
    const again = await stores.open(crashCopy(file));
    expect(listingTitles(again)).toEqual(titles(10, 2001));
    expect(again.get('settings', 'kept')).toEqual({ id: 'kept', value: 1 });
  });
});

describe('snapshotChunks (the bulk writer)', () => {
  it('hands the snapshot out in chunks of the size asked for: no buffer or string holds the whole of it', async () => {
    const records = Array.from({ length: 20_000 }, (_, i) => listing(i + 1));
    const lazy = Array.from(
      { length: 20_000 },
      (_, i) => [`t${i}`, { id: `t${i}`, messages: [{ body: 'x'.repeat(i % 50) }] }] as [string, unknown],
    );
    const sections = [
      { collection: 'listings' as const, records },
      { collection: 'thread_messages' as const, lazy },
    ];
    const chunks: Buffer[] = [];
    for await (const c of snapshotChunks(7, sections, { chunkBytes: 4096 })) chunks.push(c);
    const total = chunks.reduce((n, c) => n + c.length, 0);
    expect(total).toBeGreaterThan(2_000_000);
    expect(chunks.length).toBeGreaterThan(total / 4096 - 1);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThanOrEqual(4096);
    // The same bytes as the whole encoding, and a snapshot that reads back.
    const whole = Buffer.concat(await encodeSnapshot(7, sections));
    expect(Buffer.concat(chunks).equals(whole)).toBe(true);
    let listings = 0;
    let lazyIds: string[] = [];
    expect(readSnapshot(whole, { record: () => void listings++, lazy: (_c, _b, ids) => void (lazyIds = ids) })).toBe(7);
    expect(listings).toBe(20_000);
    expect(lazyIds).toHaveLength(20_000);
  });
});
