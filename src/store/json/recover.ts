import { promises as fs } from 'node:fs';
import type { FileLayer } from './files.js';
import { scanJournal } from './journal.js';
import { LAZY_COLLECTIONS, type CollectionName } from '../records.js';
import { readSnapshot, SnapshotError, upgradeRecord } from './snapshot.js';
import { StoreCorruptError, type Op, type State } from './state.js';

/** A read-only open saw the server compact while it read: read again. */
export class GapError extends Error {}

/** Lazy collections' index stubs from the snapshot, and the ids the journal wrote in them. */
export interface Loaded {
  seq: number;
  stubLists: Map<CollectionName, Array<{ id: string }>>;
  touched: Map<CollectionName, Set<string>>;
}

/** Loads snapshot bytes (`label` names them in errors) into an empty state; returns its seq. */
export function loadBase(state: State, label: string, snap: Buffer | null): Loaded {
  const loaded: Loaded = { seq: 0, stubLists: new Map(), touched: new Map() };
  if (!snap || !snap.length) return loaded;
  try {
    loaded.seq = readSnapshot(snap, {
      record: (c, rec) => state.loadRecord(c, rec),
      lazy: (c, bytes, ids, offsets, stubs) => {
        state.loadLazy(c, bytes, ids, offsets);
        if (stubs) loaded.stubLists.set(c, stubs);
      },
    });
  } catch (err) {
    if (!(err instanceof SnapshotError)) throw err;
    const hint = err.notOurs
      ? 'To load a fixture, use `--seed FILE` or `wcm local import FILE`.'
      : 'Restore it from a backup or an export.';
    throw new StoreCorruptError(`The data file ${label} ${err.message}. ${hint}`);
  }
  return loaded;
}

/** One journal entry's writes, replayed into the maps (the indexes are built after). */
export function replayOps(state: State, loaded: Loaded, ops: Op[], unknown: (c: string) => Error): void {
  for (const [c, id, value] of ops) {
    if (!state.has(c)) throw unknown(c);
    // A journal written before threads kept their messages apart is upgraded as it is read.
    for (const [cc, v] of upgradeRecord(c, value)) {
      state.replayed(cc, id, v);
      if (!LAZY_COLLECTIONS.has(cc)) continue;
      let ids = loaded.touched.get(cc);
      if (!ids) loaded.touched.set(cc, (ids = new Set()));
      ids.add(id);
    }
  }
}

/**
 * Replays the journal file into the maps after the snapshot; returns the seq reached. A torn tail
 * (a write never acknowledged) is cut off unless read-only; a bad record before good ones is corruption.
 */
export async function replayJournal(
  files: FileLayer,
  journalFile: string,
  state: State,
  loaded: Loaded,
  readOnly: boolean,
): Promise<void> {
  const snapshotSeq = loaded.seq;
  const buf = await files.readIfExists(journalFile);
  if (!buf || !buf.length) return;
  let firstSeq: number | null = null;
  const scan = scanJournal(buf, (frame, line) => {
    if (firstSeq === null) firstSeq = frame.s;
    if (firstSeq === frame.s && frame.s > snapshotSeq + 1) {
      if (readOnly) throw new GapError();
      throw new StoreCorruptError(
        `The journal ${journalFile} starts at record ${frame.s} but the snapshot ends at ${snapshotSeq}: records are missing. Restore from a backup.`,
      );
    }
    if (frame.s <= loaded.seq) return;
    replayOps(
      state,
      loaded,
      frame.o as Op[],
      (c) => new StoreCorruptError(`The journal ${journalFile} names an unknown collection \`${c}\` at line ${line}.`),
    );
    loaded.seq = frame.s;
  });
  const bad = scan.bad;
  if (bad?.writtenAfterAck) {
    throw new StoreCorruptError(
      `The journal ${journalFile} is corrupt at line ${bad.line} (byte ${bad.offset}): a record fails its checksum but later records are intact. ` +
        `Nothing was changed. Move the data files aside and restore from a backup or \`wcm local export\`.`,
    );
  }
  if (bad?.after && !readOnly) {
    process.emitWarning(
      `wcm: the journal ${journalFile} ends in a write torn by a crash (line ${bad.line}, byte ${bad.offset}); ` +
        `${bad.after} record${bad.after === 1 ? '' : 's'} after it, never acknowledged, ${bad.after === 1 ? 'was' : 'were'} dropped with it.`,
    );
  }
  if (scan.goodEnd < buf.length && !readOnly) {
    // The torn tail of a write that was never acknowledged: cut it off.
    const fh = await fs.open(journalFile, 'r+');
    try {
      await fh.truncate(scan.goodEnd);
      await fh.datasync();
    } finally {
      await fh.close();
    }
  }
}

/** Changes whenever the snapshot is replaced (atomic rename gives it a new inode). */
export async function snapshotIdentity(file: string): Promise<string> {
  const st = await fs.stat(file).catch(() => null);
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : 'none';
}

/**
 * Opens and loads a data file a running server may be compacting: a compaction between reading the
 * snapshot and the journal would hide the records it moved into the new snapshot. It shows as a
 * gap, or as a snapshot replaced while we read; either way, read again from a fresh start.
 */
export async function readConsistently<T>(file: string, open: () => T, load: (store: T) => Promise<void>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const store = open();
    const before = await snapshotIdentity(file);
    try {
      await load(store);
    } catch (err) {
      if (!(err instanceof GapError) || attempt >= 20) throw err;
      continue;
    }
    if ((await snapshotIdentity(file)) === before || attempt >= 20) return store;
  }
}
