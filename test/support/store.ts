import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { readSnapshot } from '../../src/store/json/snapshot.js';
import type { CollectionName, ListingRecord, RecordTypes } from '../../src/store/records.js';
import { Store } from '../../src/store/json/store.js';
import type { StoreEngine } from '../../src/store/engine/interface.js';
import { JsonEngine } from '../../src/store/json/engine.js';
import { nodeFileLayer, type JournalHandle } from '../../src/store/json/files.js';
import type { Scannable } from '../../src/store/fixtures/export.js';
import { tempDir } from './server.js';

/**
 * A fresh temp directory per test, and stores opened in it closed after the test. Call at the top
 * of a test file; read `dir` inside tests (it changes per test).
 */
export function useTempStores(): {
  readonly dir: string;
  open(file: string, opts?: Parameters<typeof Store.open>[1]): Promise<Store>;
  track(s: Store): Store;
} {
  let current: { dir: string; cleanup(): void } | null = null;
  const opened: Store[] = [];
  beforeEach(() => {
    current = tempDir();
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close().catch(() => undefined);
    current?.cleanup();
  });
  const track = (s: Store) => {
    opened.push(s);
    return s;
  };
  return {
    get dir() {
      if (!current) throw new Error('useTempStores: `dir` is only there inside a test');
      return current.dir;
    },
    open: async (file, opts = {}) => track(await Store.open(file, opts)),
    /** Closes `s` after the test too (closing a closed store does nothing). */
    track,
  };
}

export const STORE_TEST_WS = '11111111-1111-4111-8111-111111111111';

/** Listing n, with a fixed id and a time n seconds into 2026. */
export const listing = (n: number): ListingRecord => ({
  id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  workspace_id: STORE_TEST_WS,
  title: `L${n}`,
  template_slug: 'faq',
  items: [],
  button_id: null,
  created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
});

/** Every record of `c`, in export order, on either engine. */
export async function recordsOf<C extends CollectionName>(db: StoreEngine, c: C): Promise<Array<RecordTypes[C]>> {
  if (db instanceof JsonEngine) return db.store.valuesInOrder(c);
  return (db as unknown as Scannable).scan(c);
}

/** The store's listing titles in number order (L1, L2, …). */
export const listingTitles = (s: Store) =>
  [...s.values('listings')].map((l) => l.title).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));

/**
 * A snapshot file read whole, every record parsed (lazy ones too), for tests that check what is on
 * disk rather than what a store makes of it.
 */
export function readSnapshotFile(file: string): {
  version: number;
  seq: number;
  collections: Record<string, Array<{ id: string }>>;
} {
  const buf = readFileSync(file);
  const collections: Record<string, Array<{ id: string }>> = {};
  const add = (c: string, rec: { id: string }) => (collections[c] ??= []).push(rec);
  const seq = readSnapshot(buf, {
    record: add,
    lazy: (c, bytes, ids, offsets) => {
      ids.forEach((id, i) => {
        const rec = JSON.parse(bytes.toString('utf8', offsets[i], bytes.indexOf(10, offsets[i])));
        if (rec.id !== id) throw new Error(`lazy record filed as ${id} has id ${rec.id}`);
        add(c, rec);
      });
    },
  });
  const version = JSON.parse(buf.toString('utf8', 0, buf.indexOf(10))).version;
  return { version, seq, collections };
}

/**
 * The files as a crash would leave them: copies taken while the writer is still running (no
 * close, no compaction), beside the originals under another name so the copy has no lock.
 */
export function crashCopy(file: string, to = 'crash.json'): string {
  const target = path.join(path.dirname(file), to);
  if (existsSync(file)) copyFileSync(file, target);
  copyFileSync(`${file}.journal`, `${target}.journal`);
  return target;
}

/** Waits (polling every 2 ms, up to about 2 s) until `cond` holds; throws naming `what` if it never does. */
export async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The whole store as its export's text, on either engine (`wcm local export` writes the same). */
export async function exportState(db: StoreEngine): Promise<string> {
  const { exportText, exportScanned } = await import('../../src/store/fixtures/export.js');
  let text = '';
  const pieces = db instanceof JsonEngine ? exportText(db.store) : exportScanned(db as unknown as Scannable);
  for await (const piece of pieces) text += piece;
  return text;
}

/**
 * The node file layer's `openJournal`, each journal's writes going through `writeDurable(real, buf)`
 * (`real`: the journal as opened, whose own writeDurable it calls or not) and, when given, its cuts
 * through `truncate`; its size, independentSyncs and close are the real journal's.
 */
export function journalThrough(
  writeDurable: (real: JournalHandle, buf: Buffer, file: string) => Promise<void>,
  truncate?: (real: JournalHandle, n: number) => Promise<void>,
): (file: string) => Promise<JournalHandle> {
  return async (file) => {
    const j = await nodeFileLayer.openJournal(file);
    return {
      get size() {
        return j.size;
      },
      independentSyncs: j.independentSyncs,
      writeDurable: (buf) => writeDurable(j, buf, file),
      truncate: (n) => (truncate ? truncate(j, n) : j.truncate(n)),
      close: () => j.close(),
    };
  };
}
