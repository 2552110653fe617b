import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nodeFileLayer, type FileLayer } from '../../../src/store/json/files.js';
import { BulkNotDurableError } from '../../../src/store/json/held.js';
import { StoreUnavailableError } from '../../../src/store/engine/interface.js';
import { extendServer } from '../../../src/server/extend.js';
import { startLocalServer } from '../../../src/server/serve.js';
import { BULK_RECORDS, type Tx } from '../../../src/store/json/store.js';
import { generateThreads } from '../../support/generate-threads.mjs';
import { DEMO, demo, fileStoreOf } from '../../support/server.js';
import { crashCopy, listing, listingTitles, readSnapshotFile, useTempStores } from '../../support/store.js';

// Store.bulk({ background }), what `wcm serve --seed` uses: it resolves once the load is in memory,
// handing out the promise of its snapshot, which is still being written; every write waits until that is durable, and
// a snapshot that cannot be written keeps the state but refuses writes (docs/server.md, bulk loads).

const stores = useTempStores();
const titles = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `L${from + i}`);
const LOADED = 3000;

/** The node file layer, whose snapshot writes wait at a gate: `open` lets them finish, `fail` fails them. */
function gatedLayer() {
  let release!: (err?: Error) => void;
  const gate = new Promise<Error | undefined>((r) => (release = r));
  const layer = {
    /** Snapshot writes that reached the gate. */
    waiting: 0,
    open: () => release(),
    fail: (err: Error) => release(err),
    openJournal: nodeFileLayer.openJournal,
    readIfExists: nodeFileLayer.readIfExists,
    writeAtomic: async (file: string, data: Parameters<FileLayer['writeAtomic']>[1]) => {
      if (file.endsWith('.journal')) return nodeFileLayer.writeAtomic(file, data);
      layer.waiting++;
      const err = await gate;
      if (err) throw err;
      await nodeFileLayer.writeAtomic(file, data);
    },
  };
  return layer;
}

const settled = async (p: Promise<unknown>) => {
  let state = 'pending';
  p.then(
    () => (state = 'resolved'),
    () => (state = 'rejected'),
  );
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return state;
};

/** What `p` gives within `ms`: its value, or 'still waiting'. */
const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([p, new Promise((r) => setTimeout(() => r('still waiting'), ms))]);

const load = (from: number, to: number) => (tx: Tx) => {
  for (let n = from; n <= to; n++) tx.put('listings', listing(n));
  return to - from + 1;
};

describe('Store.bulk in the background', () => {
  it('resolves with the load in memory before its snapshot is durable; a write meanwhile is acknowledged only after the snapshot and then its own journal line', async () => {
    const files = gatedLayer();
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file, { files });
    await s.transact((tx) => tx.put('listings', listing(1)));
    // Resolves while the snapshot waits at the gate (the foreground bulk would wait for it).
    let durable: Promise<void> | undefined;
    expect(await within(s.bulk(load(2, LOADED), { background: (d) => (durable = d) }), 2000)).toBe(LOADED - 1);
    expect(await settled(durable!)).toBe('pending');
    expect(files.waiting).toBe(1);
    expect(listingTitles(s)).toEqual(titles(1, LOADED));
    expect(existsSync(file)).toBe(false);

    const write = s.transact((tx) => tx.put('listings', listing(LOADED + 1)));
    expect(await settled(write)).toBe('pending');
    // Reads see it at once (as any write before it is durable); the disk holds neither yet.
    expect(listingTitles(s)).toEqual(titles(1, LOADED + 1));
    expect(readFileSync(`${file}.journal`, 'latin1').replace(/\0+$/, '').trim().split('\n')).toHaveLength(1);

    files.open();
    await write;
    expect(await settled(durable!)).toBe('resolved');
    const snap = readSnapshotFile(file);
    expect(snap.collections.listings).toHaveLength(LOADED);
    const journal = readFileSync(`${file}.journal`, 'utf8').replace(/\0+$/, '').trim().split('\n');
    expect(journal).toHaveLength(1);
    expect(JSON.parse(journal[0].slice(9)).s).toBe(snap.seq + 1);
    expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(titles(1, LOADED + 1));
  });

  it('a crash before its snapshot is durable leaves the store as it was before the load', async () => {
    const files = gatedLayer();
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file, { files });
    await s.transact((tx) => tx.put('listings', listing(1)));
    await s.bulk(load(2, LOADED), { background: () => undefined });
    void s.transact((tx) => tx.put('listings', listing(LOADED + 1)));
    // The files as a crash now leaves them: the journal as before the load, no snapshot.
    expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(['L1']);
    files.open();
    await s.drain();
  });

  it('a snapshot that cannot be written keeps the loaded state for reads, and refuses every write (503) with what failed', async () => {
    const files = gatedLayer();
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file, { files });
    await s.transact((tx) => tx.put('listings', listing(1)));
    let durable: Promise<void> | undefined;
    await s.bulk(load(2, LOADED), { background: (d) => (durable = d) });
    const during = s.transact((tx) => tx.put('listings', listing(LOADED + 1)));
    files.fail(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));

    const refused = await during.then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(BulkNotDurableError);
    await expect(durable).rejects.toBe(refused);
    // A StoreUnavailableError: the server answers it 503 store_unavailable.
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect((refused as Error).message).toMatch(
      new RegExp(
        `could not be written to ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(ENOSPC.*writes are refused`,
      ),
    );
    // The write made meanwhile was undone; the load is still served.
    expect(listingTitles(s)).toEqual(titles(1, LOADED));
    await expect(s.transact((tx) => tx.put('listings', listing(LOADED + 2)))).rejects.toBe(refused);
    await expect(s.bulk(load(LOADED + 3, LOADED + 4))).rejects.toBe(refused);
    // Nothing acknowledged was lost: the disk holds what it held before the load.
    expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(['L1']);
  });

  it('without `background` it resolves only once the snapshot is durable (as before)', async () => {
    const files = gatedLayer();
    const s = await stores.open(path.join(stores.dir, 'store.json'), { files });
    const done = s.bulk(load(1, LOADED));
    expect(await within(done, 200)).toBe('still waiting');
    files.open();
    expect(await done).toBe(LOADED);
  });
});

describe('wcm serve --seed of a big fixture (in process)', () => {
  it('answers reads from memory while the seed is written; a seed that cannot be written is logged, and writes are 503 store_unavailable saying why', async () => {
    const fixture = path.join(stores.dir, 'threads.json');
    writeFileSync(fixture, JSON.stringify(generateThreads({ count: BULK_RECORDS })));
    const files = gatedLayer();
    const logs: string[] = [];
    const server = await startLocalServer({
      dataFile: path.join(stores.dir, 'store.json'),
      port: 0,
      seeds: [DEMO, fixture],
      extend: extendServer,
      env: {},
      storeOptions: { files },
      log: (line) => logs.push(line),
    });
    stores.track(fileStoreOf(server.db));
    try {
      const call = (method: string, p: string, body?: unknown) =>
        fetch(`${server.url}/workspaces/${demo.ws1}${p}`, {
          method,
          headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      expect(files.waiting).toBe(1);
      const page = await call('GET', '/threads?limit=5');
      expect(page.status).toBe(200);
      expect(((await page.json()) as { data: unknown[] }).data).toHaveLength(5);

      const during = call('POST', '/lists', { title: 'During the seed', template_slug: 'faq' });
      expect(await settled(during)).toBe('pending');
      files.fail(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
      for (const res of [await during, await call('POST', '/lists', { title: 'After', template_slug: 'faq' })]) {
        expect(res.status).toBe(503);
        // Waiting does not heal it (a restart does): no Retry-After for clients to loop on.
        expect(res.headers.get('retry-after')).toBeNull();
        const problem = (await res.json()) as { code: string; detail: string };
        expect(problem.code).toBe('store_unavailable');
        expect(problem.detail).toMatch(
          /seeded records could not be written to .*store\.json \(ENOSPC.*writes are refused/,
        );
      }
      await expect(server.seedDurable).rejects.toBeInstanceOf(BulkNotDurableError);
      expect(logs.filter((l) => l.startsWith('[error] The seeded records could not be written'))).toHaveLength(1);
      // Reads go on from memory.
      expect((await call('GET', '/threads?limit=5')).status).toBe(200);
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});
