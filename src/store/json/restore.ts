import { link, open, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { COLLECTIONS, type CollectionName, type Tx } from '../records.js';
import { readSnapshot, SnapshotError } from './snapshot.js';
import { patchSaved, rebaseSnapshot } from './snapshot-writer.js';
import { State } from './state.js';
import { fsyncDir } from './files.js';

/**
 * A saved snapshot's bytes as the data file at `seq`, with `keep`'s records of `current` (patched
 * in place when it is laid out for them, else rebased), and the state they read as.
 */
export function rebaseSaved(file: string, current: State, saved: Buffer, seq: number, keep: readonly CollectionName[]) {
  const kept = keep.map((c) => ({ collection: c, records: current.valuesInOrder(c) }));
  const patched = kept.length === 1 && patchSaved(saved, seq, kept[0]);
  const buf = patched ? saved : rebaseSnapshot(saved, seq, kept);
  const keptCount = kept.reduce((n, s) => n + s.records.length, 0);
  return { buf, patched, next: loadSaved(file, buf, keep, keptCount) };
}

/**
 * Reads a rebased saved snapshot (Store.restore) into a new state, indexes and all, as a cold start
 * reads the data file. `keep`'s records in it must be exactly the `kept` ones added by the rebase:
 * more means the file came with settings of its own (a data file copied aside, not a saved snapshot).
 */
export function loadSaved(file: string, buf: Buffer, keep: readonly CollectionName[], kept: number): State {
  const state = new State(file);
  const stubLists = new Map<CollectionName, Array<{ id: string }>>();
  let keptRead = 0;
  readSnapshot(buf, {
    record: (c, rec) => {
      if (keep.includes(c)) keptRead++;
      state.loadRecord(c, rec);
    },
    lazy: (c, bytes, ids, offsets, stubs) => {
      state.loadLazy(c, bytes, ids, offsets);
      if (stubs) stubLists.set(c, stubs);
    },
  });
  if (keptRead !== kept)
    throw new SnapshotError(`holds records of ${keep.join(', ')} (it is a data file, not a saved snapshot)`);
  state.buildIndexes(stubLists, new Map());
  return state;
}

/** Writes `next`'s records over `current`'s, but for `keep`'s (a small restore: one journal line). */
export function replaceAll(tx: Tx, next: State, keep: readonly CollectionName[]): void {
  for (const c of COLLECTIONS) {
    if (keep.includes(c)) continue;
    tx.clear(c);
    for (const rec of next.values(c)) tx.put(c, rec as never);
  }
}

/** How many writes replacing `current`'s records by `next`'s makes, but for `keep`'s. */
export function replaceCount(current: State, next: State, keep: readonly CollectionName[]): number {
  let n = 0;
  for (const c of COLLECTIONS) if (!keep.includes(c)) n += current.count(c) + next.count(c);
  return n;
}

/**
 * Makes the saved snapshot file `from` the data file `file` without copying a record: its padded
 * lines (`prefix`, patched by patchSaved) are written in place and synced, then it is hard-linked
 * beside `file` and renamed over it. Until the rename `file` is untouched (the caller makes sure
 * `from` is not `file` already); after it, `file` is the new state whole. False when the file
 * system cannot link it there (the caller then writes a copy).
 */
export async function linkSaved(from: string, file: string, prefix: Buffer): Promise<boolean> {
  const fh = await open(from, 'r+');
  try {
    await fh.write(prefix, 0, prefix.length, 0);
    await fh.datasync();
  } finally {
    await fh.close();
  }
  const tmp = `${file}.link-${process.pid}`;
  await rm(tmp, { force: true });
  try {
    await link(from, tmp);
  } catch (err) {
    // Another file system (a snapshots directory moved elsewhere), or none that links: copy it.
    if (NO_LINK.has((err as NodeJS.ErrnoException).code ?? '')) return false;
    throw err;
  }
  await rename(tmp, file);
  await fsyncDir(path.dirname(file));
  return true;
}

const NO_LINK = new Set(['EXDEV', 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK']);

/** Whether two paths name the same file (a data file still linked to the snapshot it was reset to). */
export async function sameFile(a: string, b: string): Promise<boolean> {
  const [x, y] = await Promise.all([stat(a).catch(() => null), stat(b).catch(() => null)]);
  return !!x && !!y && x.ino === y.ino && x.dev === y.dev;
}
