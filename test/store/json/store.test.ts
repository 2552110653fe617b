import { appendFileSync, existsSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../../src/server/app.js';
import { fileEngine, seedStore } from '../../support/seed-store.js';
import { nodeFileLayer, type FileLayer } from '../../../src/store/json/files.js';
import { Store, StoreCorruptError } from '../../../src/store/json/store.js';
import { DEMO, demo } from '../../support/server.js';
import { expectProblem } from '../../support/problem.js';
import {
  STORE_TEST_WS,
  crashCopy,
  journalThrough,
  listing,
  listingTitles,
  readSnapshotFile,
  useTempStores,
} from '../../support/store.js';

const stores = useTempStores();
let dir: string;
beforeEach(() => {
  dir = stores.dir;
});
const WS = STORE_TEST_WS;
const openStore = stores.open;

describe('journal recovery', () => {
  async function written(n: number): Promise<{ file: string; journalSizes: number[] }> {
    const file = path.join(dir, 'store.json');
    const s = await openStore(file);
    const journalSizes: number[] = [];
    // One transaction per listing, awaited: each is its own journal line.
    for (let i = 1; i <= n; i++) {
      await s.transact((tx) => tx.put('listings', listing(i)));
      journalSizes.push(statSync(`${file}.journal`).size);
    }
    return { file, journalSizes };
  }

  it.each([
    ['garbage without a newline', (j: string) => appendFileSync(j, '3f2a91c0 {"s":4,"o":[["listi')],
    ['a garbage line with a newline', (j: string) => appendFileSync(j, 'zzzz not a record\n')],
    ['zero bytes (a torn page)', (j: string) => appendFileSync(j, Buffer.alloc(300))],
  ])('a torn tail (%s) is cut: the start succeeds with every acknowledged write', async (_name, damage) => {
    const { file, journalSizes } = await written(3);
    const copy = crashCopy(file, 'crash.json');
    damage(`${copy}.journal`);
    const s = await openStore(copy);
    expect(listingTitles(s)).toEqual(['L1', 'L2', 'L3']);
    expect(statSync(`${copy}.journal`).size).toBe(journalSizes[2]);
    // Writes continue after the cut, and survive another crash.
    await s.transact((tx) => tx.put('listings', listing(4)));
    const again = await openStore(crashCopy(copy, 'crash2.json'));
    expect(listingTitles(again)).toEqual(['L1', 'L2', 'L3', 'L4']);
  });

  it('one group commit of several transactions with multi-byte text: one CRC-checked line each, all replayed', async () => {
    const file = path.join(dir, 'store.json');
    const s = await openStore(file);
    const titles = ['Café ☕', 'L2', '日本語のリスト', '𝄞 clef', 'plain'];
    // Not awaited one by one: the five join one batch (one write, one sync).
    await Promise.all(titles.map((title, i) => s.transact((tx) => tx.put('listings', { ...listing(i + 1), title }))));
    const lines = readFileSync(`${file}.journal`).toString('utf8').split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(5);
    lines.forEach((line, i) => {
      const json = line.slice(9);
      expect(line.slice(0, 9)).toBe(`${crc32(Buffer.from(json, 'utf8')).toString(16).padStart(8, '0')} `);
      // d: nothing was durable before this batch (a new journal).
      expect(JSON.parse(json)).toEqual({
        s: i + 1,
        d: 0,
        o: [['listings', listing(i + 1).id, { ...listing(i + 1), title: titles[i] }]],
      });
    });
    const again = await openStore(crashCopy(file, 'crash.json'));
    expect([...again.values('listings')].map((l) => l.title).sort()).toEqual([...titles].sort());
  });

  it('a partial last line (a write never acknowledged) is dropped; what came before is kept', async () => {
    const { file, journalSizes } = await written(3);
    const copy = crashCopy(file, 'crash.json');
    // Cut the last record in half: as if the process died in the middle of writing it.
    truncateSync(`${copy}.journal`, journalSizes[1] + Math.floor((journalSizes[2] - journalSizes[1]) / 2));
    const s = await openStore(copy);
    expect(listingTitles(s)).toEqual(['L1', 'L2']);
    expect(statSync(`${copy}.journal`).size).toBe(journalSizes[1]);
  });

  it('a whole last record missing only its newline is treated as torn', async () => {
    const { file, journalSizes } = await written(2);
    const copy = crashCopy(file, 'crash.json');
    truncateSync(`${copy}.journal`, journalSizes[1] - 1);
    const s = await openStore(copy);
    expect(listingTitles(s)).toEqual(['L1']);
  });

  it('corruption in the middle fails loudly, naming the line and byte, and changes nothing', async () => {
    const { file, journalSizes } = await written(4);
    const copy = crashCopy(file, 'crash.json');
    const j = `${copy}.journal`;
    const buf = readFileSync(j);
    // Flip one character inside the title of line 2: its checksum fails, lines 3 and 4 are intact.
    const at = buf.indexOf('"L2"', journalSizes[0]);
    buf[at + 2] = '9'.charCodeAt(0);
    writeFileSync(j, buf);
    const before = readFileSync(j);
    const err = await Store.open(copy).then(
      (s) => {
        stores.track(s);
        return null;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StoreCorruptError);
    expect((err as Error).message).toContain(`line 2 (byte ${journalSizes[0]})`);
    expect((err as Error).message).toContain(j);
    expect(readFileSync(j)).toEqual(before);
    // The failed start released its lock: a second try gives the same answer, not "locked".
    await expect(Store.open(copy)).rejects.toThrow(/line 2/);
  });

  describe('a crash during a group commit', () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    /**
     * L1 and L2 acknowledged one by one, then L3–L7 in one group commit, copied as a crash before
     * that commit's sync returned could leave them.
     */
    async function setUp(): Promise<{ copy: string; acked: number; lineStarts: number[] }> {
      const file = path.join(dir, 'store.json');
      const s = await openStore(file);
      await s.transact((tx) => tx.put('listings', listing(1)));
      await s.transact((tx) => tx.put('listings', listing(2)));
      const acked = statSync(`${file}.journal`).size;
      await Promise.all([3, 4, 5, 6, 7].map((n) => s.transact((tx) => tx.put('listings', listing(n)))));
      const copy = crashCopy(file, 'crash.json');
      const buf = readFileSync(`${copy}.journal`);
      const lineStarts = [0];
      for (let at = buf.indexOf(10); at !== -1 && at + 1 < buf.length; at = buf.indexOf(10, at + 1))
        lineStarts.push(at + 1);
      expect(lineStarts).toHaveLength(7);
      expect(lineStarts[2]).toBe(acked);
      return { copy, acked, lineStarts };
    }

    /** Zeros over line `i` (0-based): a page the kernel had not written back yet. */
    function losePage(copy: string, lineStarts: number[], i: number): void {
      const j = `${copy}.journal`;
      const buf = readFileSync(j);
      buf.fill(0, lineStarts[i], lineStarts[i + 1] - 1);
      writeFileSync(j, buf);
    }

    it('lines after a lost page were never acknowledged: they are dropped with the torn tail, with a warning', async () => {
      const { copy, acked, lineStarts } = await setUp();
      losePage(copy, lineStarts, 2);
      const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      const s = await openStore(copy);
      expect(listingTitles(s)).toEqual(['L1', 'L2']);
      expect(statSync(`${copy}.journal`).size).toBe(acked);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(
        /torn by a crash \(line 3, byte \d+\); 4 records after it, never acknowledged, were dropped/,
      );
      // Writing goes on after the cut, and survives another crash.
      await s.transact((tx) => tx.put('listings', listing(8)));
      const again = await openStore(crashCopy(copy, 'crash2.json'));
      expect(listingTitles(again)).toEqual(['L1', 'L2', 'L8']);
    });

    it('a lost page inside the commit keeps the lines before it', async () => {
      const { copy, lineStarts } = await setUp();
      losePage(copy, lineStarts, 4);
      vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
      const s = await openStore(copy);
      expect(listingTitles(s)).toEqual(['L1', 'L2', 'L3', 'L4']);
      expect(statSync(`${copy}.journal`).size).toBe(lineStarts[4]);
    });

    it('an acknowledged line damaged later is still corruption, whatever came after it', async () => {
      const { copy, lineStarts } = await setUp();
      // L2 was acknowledged before the group commit was written: the commit's lines say so.
      losePage(copy, lineStarts, 1);
      const before = readFileSync(`${copy}.journal`);
      await expect(Store.open(copy)).rejects.toThrow(new RegExp(`corrupt at line 2 \\(byte ${lineStarts[1]}\\)`));
      expect(readFileSync(`${copy}.journal`)).toEqual(before);
    });

    it('a journal from before lines recorded what was durable cannot tell: a bad line with intact lines after it is corruption', async () => {
      const file = path.join(dir, 'old.json');
      const frame = (o: unknown) => {
        const json = JSON.stringify(o);
        return `${crc32(Buffer.from(json)).toString(16).padStart(8, '0')} ${json}\n`;
      };
      writeFileSync(
        `${file}.journal`,
        frame({ s: 1, o: [['listings', listing(1).id, listing(1)]] }) +
          `${'\0'.repeat(40)}\n` +
          frame({ s: 3, o: [['listings', listing(3).id, listing(3)]] }),
      );
      await expect(Store.open(file)).rejects.toThrow(/corrupt at line 2/);
    });
  });

  it('a snapshot that is not a wcm data file is refused with a hint', async () => {
    const file = path.join(dir, 'fixture.json');
    writeFileSync(file, JSON.stringify({ version: 1, users: [] }));
    await expect(Store.open(file)).rejects.toThrow(/not a wcm data file.*--seed/);
  });

  it('a missing range between snapshot and journal is refused', async () => {
    const file = path.join(dir, 'store.json');
    const s = await openStore(file);
    await s.transact((tx) => tx.put('listings', listing(1)));
    await s.compact();
    await s.transact((tx) => tx.put('listings', listing(2)));
    await s.transact((tx) => tx.put('listings', listing(3)));
    const copy = crashCopy(file, 'crash.json');
    // Drop the first journal line (record 2): the journal now starts at 3, the snapshot ends at 1.
    const text = readFileSync(`${copy}.journal`, 'utf8');
    writeFileSync(`${copy}.journal`, text.slice(text.indexOf('\n') + 1));
    await expect(Store.open(copy)).rejects.toThrow(/starts at record 3 but the snapshot ends at 1/);
  });
});

describe('compaction', () => {
  it('with a small compactBytes, folds the journal into the snapshot and keeps every record', async () => {
    const file = path.join(dir, 'store.json');
    const s = await openStore(file, { compactBytes: 1024 });
    for (let i = 1; i <= 40; i++) await s.transact((tx) => tx.put('listings', listing(i)));
    // Updates and deletes are folded too.
    await s.transact((tx) => tx.put('listings', { ...listing(5), title: 'L5' }));
    await s.transact((tx) => tx.delete('listings', listing(40).id));
    // Compactions run beside the writes: drain waits for the last one to replace the journal.
    await s.drain();
    expect(statSync(`${file}.journal`).size).toBeLessThan(1024 + 400);
    const snap = readSnapshotFile(file);
    expect(snap.version).toBe(2);
    expect(snap.collections.listings.length).toBeGreaterThan(20);
    const expected = Array.from({ length: 39 }, (_, i) => `L${i + 1}`);
    expect(listingTitles(await openStore(crashCopy(file, 'crash.json')))).toEqual(expected);
    await s.close();
    // Close compacts: the journal is empty and the snapshot alone holds everything.
    expect(statSync(`${file}.journal`).size).toBe(0);
    const reopened = await openStore(file);
    expect(listingTitles(reopened)).toEqual(expected);
    expect(
      reopened
        .index('listingsByWorkspace')
        .entries(WS)
        .map((e) => e.rec.title),
    ).toEqual([...expected].reverse());
  });
});

describe('read-only open while a writer runs', () => {
  it('sees every write acknowledged before it opened, through compactions', async () => {
    const file = path.join(dir, 'store.json');
    const w = await openStore(file, { compactBytes: 2048 });
    let acked = 0;
    let stop = false;
    const writer = (async () => {
      for (let i = 1; !stop && i <= 3000; i++) {
        await w.transact((tx) => tx.put('listings', listing(i)));
        acked = i;
      }
    })();
    const checks: Array<{ before: number; seen: number; missing: number }> = [];
    for (let k = 0; k < 40; k++) {
      await new Promise((r) => setTimeout(r, 3));
      const before = acked;
      const r = await Store.openReadOnly(file);
      const ids = new Set([...r.values('listings')].map((l) => l.id));
      let missing = 0;
      for (let i = 1; i <= before; i++) if (!ids.has(listing(i).id)) missing++;
      checks.push({ before, seen: ids.size, missing });
      // A read-only store never writes: no lock taken, nothing truncated.
      await expect(r.transact((tx) => tx.put('listings', listing(99999)))).rejects.toThrow(/read-only/);
    }
    stop = true;
    await writer;
    expect(checks.every((c) => c.missing === 0)).toBe(true);
    expect(checks.some((c) => c.before > 0)).toBe(true);
    expect(existsSync(`${file}.lock`)).toBe(true);
  });

  it('leaves a torn tail in place (the writer owns the file)', async () => {
    const file = path.join(dir, 'store.json');
    const w = await openStore(file);
    await w.transact((tx) => tx.put('listings', listing(1)));
    const size = statSync(`${file}.journal`).size;
    appendFileSync(`${file}.journal`, 'partial');
    const r = await Store.openReadOnly(file);
    expect(listingTitles(r)).toEqual(['L1']);
    expect(statSync(`${file}.journal`).size).toBe(size + 7);
  });
});

/**
 * The node file layer with a switch that makes journal writes fail like a full disk. A failing
 * write still takes its place (zeros, as a failed write may leave anything there), as the layer's
 * contract says, so the store's cut-back runs as in production.
 */
function faultyLayer(): FileLayer & { failing: boolean; appends: number } {
  const layer = {
    failing: false,
    appends: 0,
    openJournal: journalThrough(async (j, buf) => {
      layer.appends++;
      if (!layer.failing) return j.writeDurable(buf);
      await j.writeDurable(Buffer.alloc(buf.length));
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }),
    writeAtomic: nodeFileLayer.writeAtomic,
    readIfExists: nodeFileLayer.readIfExists,
  };
  return layer;
}

describe('the node journal', () => {
  it('writeDurable: each call takes its place at once, so calls made together land in call order; after close it refuses', async () => {
    const file = path.join(dir, 'j.journal');
    const j = await nodeFileLayer.openJournal(file);
    const parts = ['abc\n', 'déf\n', 'ghi\n', 'jkl\n'];
    const writes = parts.map((p) => j.writeDurable!(Buffer.from(p)));
    // The places are taken before any of them finished.
    expect(j.size).toBe(Buffer.byteLength(parts.join('')));
    await Promise.all(writes);
    expect(readFileSync(file, 'utf8')).toBe(parts.join(''));
    await j.close();
    await expect(j.writeDurable!(Buffer.from('x\n'))).rejects.toThrow(/closed/);
    expect(readFileSync(file, 'utf8')).toBe(parts.join(''));
  });
});

describe('closing', () => {
  it('a store with nothing journaled since its snapshot closes without reading its data file again', async () => {
    const file = path.join(dir, 'store.json');
    const s = await openStore(file);
    await s.transact((tx) => tx.put('listings', listing(1)));
    await s.close();
    const reads: string[] = [];
    const files: FileLayer = {
      ...nodeFileLayer,
      readIfExists: (f) => (reads.push(path.basename(f)), nodeFileLayer.readIfExists(f)),
    };
    const again = await openStore(file, { files });
    expect(reads.filter((f) => f === 'store.json')).toHaveLength(1);
    await again.close();
    // Close checks the file is there (a stat); the read at open was the only one.
    expect(reads.filter((f) => f === 'store.json')).toHaveLength(1);
    expect(listingTitles(await openStore(file))).toEqual(['L1']);
  });
});

describe('an injected file-layer fault', () => {
  it('rejects the transaction and rolls memory and indexes back; later writes work', async () => {
    const files = faultyLayer();
    const file = path.join(dir, 'store.json');
    const s = await openStore(file, { files });
    await s.transact((tx) => tx.put('listings', listing(1)));
    files.failing = true;
    const p = s.transact((tx) => {
      tx.put('listings', listing(2));
      tx.put('listings', { ...listing(1), title: 'changed' });
      tx.delete('listings', listing(1).id);
    });
    // Queued in the same group commit: it builds on the failing batch, so it fails too.
    const q = s.transact((tx) => tx.put('listings', listing(3)));
    await expect(p).rejects.toThrow(/ENOSPC/);
    await expect(q).rejects.toThrow(/ENOSPC/);
    expect(listingTitles(s)).toEqual(['L1']);
    expect(s.get('listings', listing(1).id)?.title).toBe('L1');
    expect(
      s
        .index('listingsByWorkspace')
        .entries(WS)
        .map((e) => e.rec.id),
    ).toEqual([listing(1).id]);
    files.failing = false;
    await s.transact((tx) => tx.put('listings', listing(4)));
    expect(listingTitles(await openStore(crashCopy(file, 'crash.json')))).toEqual(['L1', 'L4']);
  });

  it('a transaction function that throws writes nothing', async () => {
    const files = faultyLayer();
    const s = await openStore(path.join(dir, 'store.json'), { files });
    await expect(
      s.transact((tx) => {
        tx.put('listings', listing(1));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(s.count('listings')).toBe(0);
    expect(files.appends).toBe(0);
  });

  it('through the App: createListing answers 500 and the store is unchanged', async () => {
    const files = faultyLayer();
    const s = await openStore(path.join(dir, 'store.json'), { files });
    await seedStore(s, [DEMO]);
    const app = new App({ db: fileEngine(s) });
    const before = [...s.values('listings')];
    files.failing = true;
    const res = await app.handle({
      method: 'POST',
      url: `/v1/workspaces/${demo.ws1}/lists`,
      headers: { authorization: `Bearer ${demo.owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Lost', template_slug: 'faq' }),
    });
    const p = expectProblem(res, 500, 'internal_error');
    expect(res.body).not.toMatch(/ENOSPC/);
    expect(p.detail).toMatch(/Nothing was changed/);
    expect([...s.values('listings')]).toEqual(before);
    files.failing = false;
    const list = await app.handle({
      method: 'GET',
      url: `/v1/workspaces/${demo.ws1}/lists`,
      headers: { authorization: `Bearer ${demo.owner}` },
    });
    expect(JSON.parse(list.body).data.map((l: { title: string }) => l.title)).not.toContain('Lost');
  });
});

describe('indexes', () => {
  const order = (s: Store) =>
    s
      .index('listingsByWorkspace')
      .entries(WS)
      .map((e) => e.rec.title);
  const newestFirst = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `L${from + n - 1 - i}`);

  it.each([[10], [2000]])(
    'a transaction of %i writes leaves the index sorted, newest first (small: entry by entry; big: one rebuild)',
    async (n) => {
      const s = await openStore(path.join(dir, 'store.json'));
      await s.transact((tx) => tx.put('listings', listing(n + 1)));
      await s.transact((tx) => {
        for (let i = 1; i <= n; i++) tx.put('listings', listing(i));
        tx.put('listings', { ...listing(1), title: 'L1' }); // written twice in one transaction
        tx.delete('listings', listing(n + 1).id);
      });
      expect(order(s)).toEqual(newestFirst(n));
      expect(order(await openStore(crashCopy(path.join(dir, 'store.json'), 'crash.json')))).toEqual(newestFirst(n));
    },
  );

  it.each([[10], [2000]])('a failed transaction of %i writes leaves the index as it was', async (n) => {
    const files = faultyLayer();
    const s = await openStore(path.join(dir, 'store.json'), { files });
    await s.transact((tx) => tx.put('listings', listing(5000)));
    await expect(
      s.transact((tx) => {
        for (let i = 1; i <= n; i++) tx.put('listings', listing(i));
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');
    expect(order(s)).toEqual(['L5000']);
    files.failing = true;
    await expect(
      s.transact((tx) => {
        for (let i = 1; i <= n; i++) tx.put('listings', listing(i));
        tx.delete('listings', listing(5000).id);
      }),
    ).rejects.toThrow(/ENOSPC/);
    expect(order(s)).toEqual(['L5000']);
    expect(s.count('listings')).toBe(1);
  });
});
