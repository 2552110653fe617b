import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNodeFileLayer, DEFAULT_PREALLOCATE, nodeFileLayer } from '../../../src/store/json/files.js';
import { Store } from '../../../src/store/json/store.js';
import { crashCopy, listing, listingTitles, useTempStores } from '../../support/store.js';

const stores = useTempStores();
/** Preallocating from the first write, 4 KiB ahead: a few listings cross a chunk. */
const small = createNodeFileLayer({ preallocate: { after: 0, chunk: 4096 } });
const journalBytes = (file: string) => readFileSync(`${file}.journal`);
/** Where the records end: after the last newline (zeros follow it in a preallocated file). */
const recordsEnd = (buf: Buffer) => buf.lastIndexOf(10) + 1;

/** A data file open on the small preallocating layer, holding listings L1…Ln (each its own transaction). */
async function preallocatedWith(count: number): Promise<string> {
  const file = path.join(stores.dir, 'store.json');
  const s = await stores.open(file, { files: small });
  for (let n = 1; n <= count; n++) await s.transact((tx) => tx.put('listings', listing(n)));
  return file;
}

describe('journal preallocation', () => {
  it('writes zeros ahead of the records; a crash copy reopens with every acknowledged write and the zeros cut', async () => {
    const file = await preallocatedWith(40);
    const buf = journalBytes(file);
    const end = recordsEnd(buf);
    expect(end).toBeGreaterThan(4096); // the records crossed at least one chunk
    expect(buf.length).toBeGreaterThan(end); // zeros ahead of them
    expect(buf.length - end).toBeLessThanOrEqual(4096 + 4096);
    expect(buf.subarray(end).every((b) => b === 0)).toBe(true);

    const copy = crashCopy(file);
    const reopened = await Store.open(copy);
    stores.track(reopened);
    expect(listingTitles(reopened)).toEqual(Array.from({ length: 40 }, (_, i) => `L${i + 1}`));
    // Opening cut the zeros: the file ends with the last record.
    expect(statSync(`${copy}.journal`).size).toBe(end);
    // And it goes on from there.
    await reopened.transact((tx) => tx.put('listings', listing(41)));
    await reopened.close();
    const again = await stores.open(copy);
    expect(listingTitles(again)).toContain('L41');
    expect(again.count('listings')).toBe(41);
  });

  it('a record torn short inside the preallocated zeros is a torn tail, not corruption', async () => {
    const file = await preallocatedWith(3);
    const copy = crashCopy(file);
    // The last record's second half never reached the disk: zeros where it was.
    const buf = journalBytes(copy);
    const end = recordsEnd(buf);
    const lastStart = buf.lastIndexOf(10, end - 2) + 1;
    buf.fill(0, lastStart + Math.floor((end - lastStart) / 2), end);
    writeFileSync(`${copy}.journal`, buf);
    const reopened = stores.track(await Store.open(copy));
    expect(listingTitles(reopened)).toEqual(['L1', 'L2']);
    expect(statSync(`${copy}.journal`).size).toBe(lastStart);
  });

  it('a read-only open (export) reads a preallocated journal without touching it', async () => {
    const file = await preallocatedWith(5);
    const before = journalBytes(file);
    const ro = await Store.openReadOnly(file);
    expect(listingTitles(ro)).toEqual(['L1', 'L2', 'L3', 'L4', 'L5']);
    await ro.close();
    expect(journalBytes(file).equals(before)).toBe(true);
  });

  it('a failed batch is cut back with the zeros after it; the next write preallocates again', async () => {
    const j = await small.openJournal(path.join(stores.dir, 'j.journal'));
    await j.writeDurable!(Buffer.from('a\n'));
    expect(statSync(path.join(stores.dir, 'j.journal')).size).toBe(2 + 4096);
    await j.truncate(1);
    expect(statSync(path.join(stores.dir, 'j.journal')).size).toBe(1);
    expect(j.size).toBe(1);
    await j.writeDurable!(Buffer.from('b\n'));
    const buf = readFileSync(path.join(stores.dir, 'j.journal'));
    expect(buf.subarray(0, 3).toString()).toBe('ab\n');
    expect(buf.length).toBe(3 + 4096);
    await j.close();
    // Closing cuts the zeros.
    expect(readFileSync(path.join(stores.dir, 'j.journal')).toString()).toBe('ab\n');
  });

  it('by default a quiet journal is not preallocated; one past the threshold is, a chunk ahead', async () => {
    const f = path.join(stores.dir, 'd.journal');
    const j = await nodeFileLayer.openJournal(f);
    await j.writeDurable!(Buffer.from('x\n'));
    expect(statSync(f).size).toBe(2);
    const big = Buffer.alloc(DEFAULT_PREALLOCATE.after, 'y');
    await j.writeDurable!(big);
    expect(j.size).toBe(2 + big.length);
    expect(statSync(f).size).toBe(2 + big.length + DEFAULT_PREALLOCATE.chunk);
    await j.close();
    expect(statSync(f).size).toBe(2 + big.length);
  });

  it('without preallocation the file is always exactly the records', async () => {
    const f = path.join(stores.dir, 'n.journal');
    const j = await createNodeFileLayer({ preallocate: null }).openJournal(f);
    await j.writeDurable!(Buffer.alloc(DEFAULT_PREALLOCATE.after + 10, 'z'));
    expect(statSync(f).size).toBe(DEFAULT_PREALLOCATE.after + 10);
    await j.close();
  });
});
