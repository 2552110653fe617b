import { constants, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { nodeFileLayer, type FileLayer, type JournalHandle } from '../../../src/store/json/files.js';
import { defaultPipelineDepth } from '../../../src/store/json/store.js';
import { STORE_TEST_WS, crashCopy, listing, listingTitles, until, useTempStores } from '../../support/store.js';

const stores = useTempStores();
let dir: string;
beforeEach(() => {
  dir = stores.dir;
});
const WS = STORE_TEST_WS;
// These tests run batches side by side: depth 4 whatever UV_THREADPOOL_SIZE the test run has.
const openStore: typeof stores.open = (file, opts = {}) => stores.open(file, { pipelineDepth: 4, ...opts });

const settleFor = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A durable write held after it really finished, until the test releases or fails it. */
interface HeldSync {
  n: number;
  done: boolean;
  release(): void;
  fail(err: Error): void;
}

/**
 * The node file layer with `writeDurable` (the pipelined path) where, while `holding`, every
 * durable write really writes and syncs and then waits to be released or failed by the test (in
 * `syncs`). With `tear` set, a write puts its first 5 bytes in its place and fails with that error.
 * Everything is logged.
 */
function heldSyncLayer(opts: { independentSyncs?: boolean } = {}): FileLayer & {
  holding: boolean;
  tear: Error | null;
  log: string[];
  syncs: HeldSync[];
  journal: JournalHandle | null;
} {
  const layer = {
    holding: false,
    tear: null as Error | null,
    log: [] as string[],
    syncs: [] as HeldSync[],
    journal: null as JournalHandle | null,
    openJournal: async (file: string) => {
      const j = await nodeFileLayer.openJournal(file);
      let writes = 0;
      const h: JournalHandle = {
        get size() {
          return j.size;
        },
        writeDurable: async (buf: Buffer) => {
          const n = ++writes;
          layer.log.push(`write ${n} start`);
          if (layer.tear) {
            // A torn write: its first bytes land, the rest of its place stays zeros, then the error.
            const err = layer.tear;
            await j.writeDurable(Buffer.concat([buf.subarray(0, 5), Buffer.alloc(buf.length - 5)]));
            layer.log.push(`write ${n} failed`);
            throw err;
          }
          await j.writeDurable(buf);
          if (layer.holding) {
            await new Promise<void>((resolve, reject) => {
              const held: HeldSync = {
                n,
                done: false,
                release: () => ((held.done = true), resolve()),
                fail: (err) => ((held.done = true), reject(err)),
              };
              layer.syncs.push(held);
            });
          }
          layer.log.push(`write ${n} done`);
        },
        truncate: (n: number) => j.truncate(n),
        close: () => j.close(),
        independentSyncs: opts.independentSyncs,
      };
      layer.journal = h;
      return h;
    },
    writeAtomic: nodeFileLayer.writeAtomic,
    readIfExists: nodeFileLayer.readIfExists,
  };
  return layer;
}

const EIO = () => Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });

/** L1 durable; then batches B (L2) and C (L3) written, both syncs started and held. */
async function twoSyncsAtOnce(opts: { independentSyncs?: boolean } = {}) {
  const files = heldSyncLayer(opts);
  const file = path.join(dir, 'store.json');
  const s = await openStore(file, { files });
  await s.transact((tx) => tx.put('listings', listing(1)));
  files.holding = true;
  const results: string[] = [];
  const b = s
    .transact((tx) => tx.put('listings', listing(2)))
    .then(
      () => results.push('B ok'),
      () => results.push('B rejected'),
    );
  await until(() => files.syncs.length === 1, 'sync B');
  const c = s
    .transact((tx) => tx.put('listings', listing(3)))
    .then(
      () => results.push('C ok'),
      () => results.push('C rejected'),
    );
  await until(() => files.syncs.length === 2, 'sync C');
  return { files, file, s, results, b, c };
}

describe('pipelined commits', () => {
  it('writes batch N+1 while batch N is still syncing, and acknowledges in order', async () => {
    const files = heldSyncLayer();
    const s = await openStore(path.join(dir, 'store.json'), { files });
    files.holding = true;
    const acks: string[] = [];
    const a = s.transact((tx) => tx.put('listings', listing(1))).then(() => acks.push('A'));
    await until(() => files.syncs.length === 1, 'the first sync');
    const b = s.transact((tx) => tx.put('listings', listing(2))).then(() => acks.push('B'));
    await until(() => files.syncs.length === 2, 'the second sync');
    // Batch 2 was written while batch 1 was not yet durable.
    expect(files.log).toEqual(['write 1 start', 'write 2 start']);
    // The later sync finishing first acknowledges nothing.
    files.syncs[1].release();
    await settleFor(20);
    expect(acks).toEqual([]);
    files.syncs[0].release();
    await Promise.all([a, b]);
    expect(acks).toEqual(['A', 'B']);
    expect(listingTitles(s)).toEqual(['L1', 'L2']);
  });

  it('never has more than 4 batches in flight', async () => {
    const files = heldSyncLayer();
    const s = await openStore(path.join(dir, 'store.json'), { files });
    files.holding = true;
    const all: Promise<unknown>[] = [];
    for (let i = 1; i <= 6; i++) {
      all.push(s.transact((tx) => tx.put('listings', listing(i))));
      if (i <= 4) await until(() => files.syncs.length === i, `sync ${i}`);
      else await settleFor(10);
    }
    expect(files.syncs.length).toBe(4);
    expect(files.log.filter((l) => l.endsWith('start')).length).toBe(4);
    for (const h of files.syncs) h.release();
    // 5 and 6 go together in one more batch once there is room.
    await until(() => files.syncs.length === 5, 'the fifth sync');
    files.syncs[4].release();
    await Promise.all(all);
    expect(listingTitles(s)).toEqual(['L1', 'L2', 'L3', 'L4', 'L5', 'L6']);
  });

  it('at depth 1, every transaction that arrives while a batch is written goes into the one next batch', async () => {
    const files = heldSyncLayer();
    const s = await openStore(path.join(dir, 'store.json'), { files, pipelineDepth: 1 });
    files.holding = true;
    const first = s.transact((tx) => tx.put('listings', listing(1)));
    await until(() => files.syncs.length === 1, 'the first sync');
    const rest: Promise<unknown>[] = [];
    for (let i = 2; i <= 6; i++) {
      rest.push(s.transact((tx) => tx.put('listings', listing(i))));
      await settleFor(5);
    }
    // Nothing more was started while the first write ran (at depth 4, four batches would be).
    expect(files.log).toEqual(['write 1 start']);
    files.syncs[0].release();
    await first;
    await until(() => files.syncs.length === 2, 'the second sync');
    files.syncs[1].release();
    await Promise.all(rest);
    // L2..L6 were written together: two writes in all.
    expect(files.log).toEqual(['write 1 start', 'write 1 done', 'write 2 start', 'write 2 done']);
    expect(listingTitles(s)).toEqual(['L1', 'L2', 'L3', 'L4', 'L5', 'L6']);
  });

  it('the default depth is the thread pool size (UV_THREADPOOL_SIZE), from 1 to 4', () => {
    expect(defaultPipelineDepth({})).toBe(4);
    expect(defaultPipelineDepth({ UV_THREADPOOL_SIZE: '1' })).toBe(1);
    expect(defaultPipelineDepth({ UV_THREADPOOL_SIZE: '2' })).toBe(2);
    expect(defaultPipelineDepth({ UV_THREADPOOL_SIZE: '16' })).toBe(4);
    expect(defaultPipelineDepth({ UV_THREADPOOL_SIZE: 'lots' })).toBe(4);
    expect(defaultPipelineDepth({ UV_THREADPOOL_SIZE: '0' })).toBe(4);
  });

  it('a failed sync rejects that batch and every later one, rolls memory back, cuts the file; later writes work and a reopen shows exactly what was acknowledged', async () => {
    const files = heldSyncLayer();
    const file = path.join(dir, 'store.json');
    const s = await openStore(file, { files });
    await s.transact((tx) => tx.put('listings', listing(1)));
    const goodSize = statSync(`${file}.journal`).size;
    files.holding = true;
    const results: string[] = [];
    const track = (name: string, p: Promise<unknown>) =>
      p.then(
        () => results.push(`${name} ok`),
        (err: Error) => results.push(`${name} ${(err as { code?: string }).code ?? err.message}`),
      );
    const b = track(
      'B',
      s.transact((tx) => {
        tx.put('listings', listing(2));
        tx.put('listings', { ...listing(1), title: 'L1 changed' });
      }),
    );
    await until(() => files.syncs.length === 1, 'sync B');
    const c = track(
      'C',
      s.transact((tx) => {
        tx.delete('listings', listing(1).id);
        tx.put('listings', listing(3));
      }),
    );
    await until(() => files.syncs.length === 2, 'sync C');
    const d = track(
      'D',
      s.transact((tx) => tx.put('listings', { ...listing(2), title: 'L2 changed' })),
    );
    await until(() => files.syncs.length === 3, 'sync D');
    expect(statSync(`${file}.journal`).size).toBeGreaterThan(goodSize);
    // C and D's syncs succeed first; B's fails: B, C and D are all rejected.
    files.syncs[1].release();
    files.syncs[2].release();
    await settleFor(10);
    expect(results).toEqual([]);
    files.syncs[0].fail(EIO());
    await Promise.all([b, c, d]);
    expect(results).toEqual(['B EIO', 'C EIO', 'D EIO']);
    expect(listingTitles(s)).toEqual(['L1']);
    expect(s.get('listings', listing(1).id)?.title).toBe('L1');
    expect(
      s
        .index('listingsByWorkspace')
        .entries(WS)
        .map((e) => e.rec.id),
    ).toEqual([listing(1).id]);
    await s.drain();
    expect(statSync(`${file}.journal`).size).toBe(goodSize);
    expect(files.journal!.size).toBe(goodSize);

    files.holding = false;
    await s.transact((tx) => tx.put('listings', listing(4)));
    expect(listingTitles(s)).toEqual(['L1', 'L4']);
    const reopened = await openStore(crashCopy(file, 'crash.json'));
    expect(listingTitles(reopened)).toEqual(['L1', 'L4']);
    expect(reopened.get('listings', listing(1).id)?.title).toBe('L1');
  });

  it('a batch whose sync succeeded while a later sync was running is not acknowledged if that later sync fails', async () => {
    // Concurrent fdatasyncs on one file: the error for the first batch's pages may be reported to
    // the second sync only, so the first batch cannot be called durable either.
    const { files, file, s, results, b, c } = await twoSyncsAtOnce();
    files.syncs[0].release();
    await settleFor(10);
    expect(results).toEqual([]);
    files.syncs[1].fail(EIO());
    await Promise.all([b, c]);
    expect(results).toEqual(['B rejected', 'C rejected']);
    expect(listingTitles(s)).toEqual(['L1']);
    files.holding = false;
    await s.transact((tx) => tx.put('listings', listing(5)));
    expect(listingTitles(await openStore(crashCopy(file, 'crash.json')))).toEqual(['L1', 'L5']);
  });

  it('with syncs that report their errors independently (the node layer), a batch is acknowledged once its own sync and the earlier ones succeeded', async () => {
    const { files, file, s, results, b, c } = await twoSyncsAtOnce({ independentSyncs: true });
    files.syncs[0].release();
    await b;
    // B did not wait for C's sync, which is still running.
    expect(results).toEqual(['B ok']);
    expect(files.syncs[1].done).toBe(false);
    files.syncs[1].fail(EIO());
    await c;
    expect(results).toEqual(['B ok', 'C rejected']);
    files.holding = false;
    // The next write comes after the cut of C's bytes.
    await s.transact((tx) => tx.put('listings', listing(5)));
    expect(listingTitles(await openStore(crashCopy(file, 'crash.json')))).toEqual(['L1', 'L2', 'L5']);
  });

  it('the node journal writes through an O_DSYNC file description per concurrent write, and closes them', async () => {
    const { SYNC_SLOTS } = await import('../../../src/store/json/files.js');
    const file = path.join(dir, 'j.journal');
    const fds = () => readdirSync('/proc/self/fd');
    const before = fds().length;
    const j = await nodeFileLayer.openJournal(file);
    expect(j.independentSyncs).toBe(true);
    expect(fds().length).toBe(before + 1 + SYNC_SLOTS);
    // Each write is durable when it returns: the descriptions it uses carry O_DSYNC.
    const O_DSYNC = constants.O_DSYNC;
    const onJournal = fds().filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
    const flags = onJournal.map((fd) =>
      parseInt(/^flags:\s+([0-7]+)/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))![1], 8),
    );
    expect(flags.filter((f) => (f & O_DSYNC) === O_DSYNC)).toHaveLength(SYNC_SLOTS);
    await Promise.all(Array.from({ length: SYNC_SLOTS }, (_, i) => j.writeDurable(Buffer.from(`${i}\n`))));
    const over = await Promise.allSettled(
      Array.from({ length: SYNC_SLOTS + 1 }, () => j.writeDurable(Buffer.from('x\n'))),
    );
    expect(over.filter((r) => r.status === 'fulfilled')).toHaveLength(SYNC_SLOTS);
    expect(over.find((r) => r.status === 'rejected')).toMatchObject({
      reason: { message: 'more than 4 durable journal writes at once' },
    });
    // The refused one took no place.
    expect(j.size).toBe(2 * SYNC_SLOTS * 2);
    await j.close();
    expect(fds().length).toBe(before);
  });

  it('a failed write rejects its batch and every later one, never an earlier one; the file is cut back to it', async () => {
    // Writes that report their errors independently, as the node journal's do.
    const held = heldSyncLayer({ independentSyncs: true });
    const file = path.join(dir, 'store.json');
    const s = await openStore(file, { files: held });
    await s.transact((tx) => tx.put('listings', listing(1)));
    const goodSize = statSync(`${file}.journal`).size;
    held.holding = true;
    const b = s.transact((tx) => tx.put('listings', listing(2)));
    await until(() => held.syncs.length === 1, 'write B');
    held.tear = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const c = s.transact((tx) => tx.put('listings', listing(3)));
    const cOutcome = c.then(
      () => 'ok',
      (err: Error) => err.message,
    );
    await until(() => held.log.includes('write 3 failed'), 'C to fail');
    held.tear = null;
    const d = s.transact((tx) => tx.put('listings', listing(4)));
    const dOutcome = d.then(
      () => 'ok',
      (err: Error) => err.message,
    );
    await settleFor(10);
    // B was written before C failed: C's failure leaves it alone, and C is answered after B.
    held.syncs[0].release();
    await expect(b).resolves.toMatchObject({ title: 'L2' });
    for (const h of held.syncs.slice(1)) h.release();
    expect(await cOutcome).toMatch(/ENOSPC/);
    // D came after C (it may build on it): rejected too.
    expect(await dOutcome).toMatch(/ENOSPC/);
    await s.drain();
    expect(listingTitles(s)).toEqual(['L1', 'L2']);
    expect(statSync(`${file}.journal`).size).toBeGreaterThan(goodSize);
    held.holding = false;
    await s.transact((tx) => tx.put('listings', listing(5)));
    expect(listingTitles(await openStore(crashCopy(file, 'crash.json')))).toEqual(['L1', 'L2', 'L5']);
  });

  it('a torn write whose clean-up cut also fails is cut before the next write', async () => {
    const file = path.join(dir, 'store.json');
    const { files, faults } = tornLayer();
    const s = await openStore(file, { files });
    await s.transact((tx) => tx.put('listings', listing(1)));
    const goodSize = statSync(`${file}.journal`).size;
    faults.torn = faults.failTruncate = true;
    await expect(s.transact((tx) => tx.put('listings', listing(2)))).rejects.toThrow(/EIO/);
    await s.drain();
    expect(statSync(`${file}.journal`).size).toBeGreaterThan(goodSize); // the half line is still there
    expect(listingTitles(s)).toEqual(['L1']);
    faults.torn = false;
    // Still cannot cut: the next write is refused rather than written after the torn bytes.
    await expect(s.transact((tx) => tx.put('listings', listing(3)))).rejects.toThrow(/ftruncate/);
    faults.failTruncate = false;
    await s.transact((tx) => tx.put('listings', listing(4)));
    expect(listingTitles(s)).toEqual(['L1', 'L4']);
    expect(listingTitles(await openStore(crashCopy(file, 'crash.json')))).toEqual(['L1', 'L4']);
  });

  it('a cut still pending when compact() empties the journal is dropped: the next write does not pad the new journal with zeros', async () => {
    const file = path.join(dir, 'store.json');
    const { files, faults } = tornLayer();
    const s = await openStore(file, { files });
    await s.transact((tx) => tx.put('listings', listing(1)));
    faults.torn = faults.failTruncate = true;
    await expect(s.transact((tx) => tx.put('listings', listing(2)))).rejects.toThrow(/EIO/);
    await s.drain();
    faults.torn = faults.failTruncate = false;
    // The snapshot now holds everything and the journal is emptied: the old cut offset means nothing.
    await s.compact();
    expect(statSync(`${file}.journal`).size).toBe(0);
    await s.transact((tx) => tx.put('listings', listing(3)));
    expect(readFileSync(`${file}.journal`, 'utf8').startsWith('\u0000')).toBe(false);
    expect(listingTitles(s)).toEqual(['L1', 'L3']);
    expect(listingTitles(await openStore(crashCopy(file, 'crash.json')))).toEqual(['L1', 'L3']);
  });
});

/**
 * The node file layer with two switches: `torn` makes a journal write land half its bytes and then
 * fail (EIO), `failTruncate` makes the cut that cleans up after it fail too.
 */
function tornLayer(): { files: FileLayer; faults: { torn: boolean; failTruncate: boolean } } {
  const faults = { torn: false, failTruncate: false };
  const files: FileLayer = {
    ...nodeFileLayer,
    openJournal: async (f) => {
      const j = await nodeFileLayer.openJournal(f);
      return {
        get size() {
          return j.size;
        },
        writeDurable: async (buf) => {
          if (!faults.torn) return j.writeDurable(buf);
          await j.writeDurable(buf.subarray(0, buf.length >> 1));
          throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
        },
        truncate: (n) => (faults.failTruncate ? Promise.reject(new Error('EIO: i/o error, ftruncate')) : j.truncate(n)),
        close: () => j.close(),
      };
    },
  };
  return { files, faults };
}
