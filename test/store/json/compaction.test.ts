import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodeFileLayer, type FileLayer } from '../../../src/store/json/files.js';
import { Store } from '../../../src/store/json/store.js';
import { ROOT } from '../../support/server.js';
import {
  STORE_TEST_WS,
  crashCopy,
  journalThrough,
  listing,
  listingTitles,
  readSnapshotFile,
  until,
  useTempStores,
} from '../../support/store.js';

// Automatic compaction on the pipelined journal runs beside the writes: the snapshot is encoded
// and written while later batches are appended, then the journal is replaced by those batches.

const stores = useTempStores();

const titles = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `L${from + i}`);

/** The sequence numbers of the journal's lines, in file order. */
function journalSeqs(file: string): number[] {
  const text = readFileSync(`${file}.journal`, 'utf8').replace(/\0+$/, '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line.slice(9)).s as number);
}

interface Held {
  release(): void;
  fail(err: Error): void;
}

/**
 * The node file layer, where the snapshot's atomic write can be held (it waits before writing
 * anything until the test releases or fails it), the journal's replacement can be made to fail,
 * and the next durable journal write can be made to fail after writing its bytes.
 */
function controlledLayer(): FileLayer & {
  holdSnapshot: boolean;
  snapshots: Held[];
  failJournalReplace: boolean;
  journalReplaces: number;
  failNextWrite: Error | null;
} {
  const layer = {
    holdSnapshot: false,
    snapshots: [] as Held[],
    failJournalReplace: false,
    journalReplaces: 0,
    failNextWrite: null as Error | null,
    openJournal: journalThrough(async (j, buf) => {
      await j.writeDurable(buf);
      const err = layer.failNextWrite;
      if (err) {
        layer.failNextWrite = null;
        throw err;
      }
    }),
    writeAtomic: async (file: string, data: string | Buffer | readonly Buffer[]) => {
      if (file.endsWith('.journal')) {
        layer.journalReplaces++;
        if (layer.failJournalReplace)
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      } else if (layer.holdSnapshot) {
        await new Promise<void>((resolve, reject) => layer.snapshots.push({ release: resolve, fail: reject }));
      }
      return nodeFileLayer.writeAtomic(file, data);
    },
    readIfExists: nodeFileLayer.readIfExists,
  };
  return layer;
}

/** Resolves to 'blocked' if `p` has not settled within `ms`. */
const within = <T>(p: Promise<T>, ms = 3000) =>
  Promise.race([p.then(() => 'done' as const), new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), ms))]);

/** A store with a small compactBytes, written to (L1, L2, …) until a compaction's snapshot is held. */
async function compactionHeld() {
  const files = controlledLayer();
  const file = path.join(stores.dir, 'store.json');
  const s = await stores.open(file, { files, compactBytes: 2048 });
  files.holdSnapshot = true;
  let n = 0;
  while (!files.snapshots.length) {
    await s.transact((tx) => tx.put('listings', listing(++n)));
    // The compaction starts once the flush loop is idle: give it that turn.
    await new Promise((r) => setImmediate(r));
  }
  files.holdSnapshot = false;
  return { files, file, s, n };
}

describe('automatic compaction beside the writes', () => {
  it('acknowledges writes while the snapshot is written, then keeps only those writes in the journal', async () => {
    const { files, file, s, n } = await compactionHeld();
    // Five writes, each durable, while the snapshot is still held: none waits for it.
    for (let i = n + 1; i <= n + 5; i++)
      expect(await within(s.transact((tx) => tx.put('listings', listing(i))))).toBe('done');
    expect(files.snapshots).toHaveLength(1);
    // A crash now: the old snapshot and the whole journal.
    expect(listingTitles(await stores.open(crashCopy(file, 'crash-during.json')))).toEqual(titles(1, n + 5));

    files.snapshots[0].release();
    await s.drain();
    // The snapshot holds the state when the compaction started; the journal only what came after.
    expect(readSnapshotFile(file).collections.listings).toHaveLength(n);
    const snapSeq = readSnapshotFile(file).seq;
    expect(journalSeqs(file)).toEqual([snapSeq + 1, snapSeq + 2, snapSeq + 3, snapSeq + 4, snapSeq + 5]);
    expect(listingTitles(await stores.open(crashCopy(file, 'crash-after.json')))).toEqual(titles(1, n + 5));

    // Writing goes on in the replaced journal, and a restart sees everything.
    await s.transact((tx) => tx.put('listings', listing(n + 6)));
    expect(journalSeqs(file).at(-1)).toBe(snapSeq + 6);
    await s.close();
    expect(listingTitles(await stores.open(file))).toEqual(titles(1, n + 6));
  });

  it('if the journal cannot be replaced, it keeps every record (replay skips what the snapshot holds) and writing goes on', async () => {
    const { files, file, s, n } = await compactionHeld();
    await s.transact((tx) => tx.put('listings', listing(n + 1)));
    files.failJournalReplace = true;
    files.snapshots[0].release();
    await s.drain();
    expect(files.journalReplaces).toBe(1);
    // The snapshot was written, the journal still starts at record 1.
    expect(readSnapshotFile(file).collections.listings).toHaveLength(n);
    expect(journalSeqs(file)[0]).toBe(1);
    await s.transact((tx) => tx.put('listings', listing(n + 2)));
    expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(titles(1, n + 2));
    files.failJournalReplace = false;
    await s.close();
    expect(statSync(`${file}.journal`).size).toBe(0);
    expect(listingTitles(await stores.open(file))).toEqual(titles(1, n + 2));
  });

  it('a write that fails during the compaction is left out of the replaced journal', async () => {
    const { files, file, s, n } = await compactionHeld();
    await s.transact((tx) => tx.put('listings', listing(n + 1)));
    files.failNextWrite = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    await expect(s.transact((tx) => tx.put('listings', listing(n + 2)))).rejects.toThrow(/EIO/);
    await s.transact((tx) => tx.put('listings', listing(n + 3)));
    files.snapshots[0].release();
    await s.drain();
    const snapSeq = readSnapshotFile(file).seq;
    // L(n+2) was rolled back and its sequence number reused by L(n+3).
    expect(journalSeqs(file)).toEqual([snapSeq + 1, snapSeq + 2]);
    const expected = [...titles(1, n + 1), `L${n + 3}`];
    expect(listingTitles(s)).toEqual(expected);
    expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(expected);
  });

  it('a failed snapshot write changes nothing on disk; writing goes on and close compacts', async () => {
    const { files, file, s, n } = await compactionHeld();
    const before = existsSync(file) ? readFileSync(file) : null;
    await s.transact((tx) => tx.put('listings', listing(n + 1)));
    files.snapshots[0].fail(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
    await s.drain();
    expect(existsSync(file) ? readFileSync(file) : null).toEqual(before);
    expect(journalSeqs(file)[0]).toBe(1);
    expect(files.journalReplaces).toBe(0);
    await s.transact((tx) => tx.put('listings', listing(n + 2)));
    await s.close();
    expect(listingTitles(await stores.open(file))).toEqual(titles(1, n + 2));
  });

  it('close waits for a compaction under way and leaves one complete snapshot', async () => {
    const { files, file, s, n } = await compactionHeld();
    await s.transact((tx) => tx.put('listings', listing(n + 1)));
    let closed = false;
    const closing = s.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(false);
    files.snapshots[0].release();
    await closing;
    expect(statSync(`${file}.journal`).size).toBe(0);
    expect(readSnapshotFile(file).collections.listings).toHaveLength(n + 1);
    expect(listingTitles(await stores.open(file))).toEqual(titles(1, n + 1));
  });

  it('keeps compacting under a steady stream of writes, and a restart sees every acknowledged one', async () => {
    const files = controlledLayer();
    const file = path.join(stores.dir, 'store.json');
    const s = await stores.open(file, { files, compactBytes: 4096 });
    // Eight writers at once for 1,200 writes: the journal passes compactBytes many times over.
    let next = 0;
    const writer = async () => {
      while (next < 1200) {
        const i = ++next;
        await s.transact((tx) => tx.put('listings', listing(i)));
      }
    };
    await Promise.all(Array.from({ length: 8 }, writer));
    await until(() => files.journalReplaces > 0, 'a journal replacement');
    await s.drain();
    expect(files.journalReplaces).toBeGreaterThan(3);
    expect(statSync(`${file}.journal`).size).toBeLessThan(4096 + 2048);
    expect(listingTitles(await stores.open(crashCopy(file)))).toEqual(titles(1, 1200));
  });
});

describe('nodeFileLayer.writeAtomic', () => {
  it('writes large and small buffers (in pieces of at most 1 MiB) byte for byte', async () => {
    const file = path.join(stores.dir, 'atomic.bin');
    const big = Buffer.alloc(2.5 * 1024 * 1024);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 0xff;
    const smalls = Array.from({ length: 3000 }, (_, i) => Buffer.from(`line ${i}\n`));
    const data = [
      Buffer.from('head\n'),
      ...smalls,
      big,
      Buffer.from('mid\n'),
      big.subarray(5, 1024 * 1024 + 9),
      ...smalls,
    ];
    await nodeFileLayer.writeAtomic(file, data);
    expect(readFileSync(file).equals(Buffer.concat(data))).toBe(true);
    await nodeFileLayer.writeAtomic(file, 'text');
    expect(readFileSync(file, 'utf8')).toBe('text');
  });
});

describe('SIGKILL while compactions run beside the writes (a child process on the built store)', () => {
  // The child writes listings from 8 writers at once into a store that compacts every 8 KiB, and
  // prints each listing's number once its write is acknowledged. It is killed at a random moment:
  // during an encoding, a snapshot rename, a journal replacement or a batch, whichever comes.
  const CHILD = `
    const { Store } = await import(${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/src/store/json/store.js')).href)});
    const { listing } = { listing: (n) => ({ id: '00000000-0000-4000-8000-' + String(n).padStart(12, '0'), workspace_id: '${STORE_TEST_WS}', title: 'L' + n, template_slug: 'faq', items: [], button_id: null, created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString() }) };
    const [file, from] = process.argv.slice(2);
    const s = await Store.open(file, { compactBytes: 8192 });
    let next = Number(from);
    const writer = async () => { for (;;) { const i = next++; await s.transact((tx) => tx.put('listings', listing(i))); process.stdout.write(i + '\\n'); } };
    for (let w = 0; w < 8; w++) writer();
  `;

  it('loses no acknowledged write over 12 kills', { timeout: 120_000 }, async () => {
    const file = path.join(stores.dir, 'store.json');
    const script = path.join(stores.dir, 'child.mjs');
    writeFileSync(script, CHILD);
    const acked = new Set<number>();
    let from = 1;
    for (let round = 0; round < 12; round++) {
      const child = spawn(process.execPath, [script, file, String(from)], { stdio: ['ignore', 'pipe', 'inherit'] });
      let buf = '';
      let ackedThisRound = 0;
      child.stdout.on('data', (d: Buffer) => {
        buf += d.toString();
        const lines = buf.split('\n');
        buf = lines.pop()!;
        for (const l of lines) {
          acked.add(Number(l));
          ackedThisRound++;
        }
      });
      const exited = new Promise((r) => child.once('exit', r));
      await until(() => ackedThisRound >= 300, `round ${round}: 300 acknowledged writes`);
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 200)));
      child.kill('SIGKILL');
      await exited;
      // The next round writes numbers no round used.
      from += 1_000_000;
      // Read-only, as the crash left it: no close, so no compaction of ours.
      const s = await Store.openReadOnly(file);
      const present = new Set([...s.values('listings')].map((l) => Number(l.title.slice(1))));
      const lost = [...acked].filter((n) => !present.has(n));
      expect(lost, `round ${round}: acknowledged writes lost`).toEqual([]);
    }
    // The children's own compactions ran (nothing else wrote the snapshot): it holds most of the
    // listings, and the journal only the last few.
    expect(readSnapshotFile(file).collections.listings.length).toBeGreaterThan(acked.size / 2);
    expect(statSync(`${file}.journal`).size).toBeLessThan(64 * 1024);
  });
});
