import type { CollectionName, Tx } from '../records.js';
import { loadBase, replayOps } from '../recover.js';
import { snapshotChunks } from '../snapshot-writer.js';
import { State, StoreCorruptError, type Op } from '../state.js';
import type { StoreView as Store } from '../view.js';
import type { JournalRow, SharedHost } from './shared-host.js';
import { tableCollections, tableTx, type TableReads } from './table-writes.js';
import { noTableWrites, type TableWrites } from './write-set.js';

/** What the PostgreSQL log does to the store's state in memory. */
export function sharedHost(store: Store): SharedHost {
  /** Threads and the records the store keeps in tables (store.tabled, set before). */
  const tables = tableCollections(store.tabled);
  /** Table records a base written before they had their table held: moved to it at start-up. */
  let held: TableWrites | null = null;
  return {
    tables,
    get seq() {
      return store.seq;
    },
    set seq(n: number) {
      store.seq = n;
    },
    reload(base: Buffer | null, baseSeq: number, rows: JournalRow[]) {
      const state = new State(store.file);
      const loaded = loadBase(state, store.file, base);
      loaded.seq = Math.max(loaded.seq, baseSeq);
      for (const r of rows) {
        replayOps(
          state,
          loaded,
          JSON.parse(r.ops) as Op[],
          (c) =>
            new StoreCorruptError(`The journal in ${store.file} names an unknown collection \`${c}\` at ${r.seq}.`),
        );
        loaded.seq = r.seq;
      }
      state.buildIndexes(loaded.stubLists, loaded.touched);
      held = takeTabled(state, tables);
      store.state = state;
      store.seq = loaded.seq;
    },
    takeHeld() {
      const h = held;
      held = null;
      return h;
    },
    applyRemote(ops: Op[]) {
      const done: Op[] = [];
      const undo: Op[] = [];
      const tx = store.state.tx(done, undo);
      for (const [c, id, value] of ops) {
        if (value === null) tx.delete(c, id);
        else tx.put(c, value as never);
      }
      store.state.reindex(done, undo);
    },
    run<T>(fn: (tx: Tx) => T, reads: TableReads) {
      const ops: Op[] = [];
      const undo: Op[] = [];
      const table = noTableWrites();
      let result: T;
      try {
        result = fn(tableTx(store.state.tx(ops, undo), tables, table, reads));
      } catch (err) {
        store.state.rollback(undo, false);
        throw err;
      }
      store.state.reindex(ops, undo);
      return { result, ops, undo, table };
    },
    rollback(undo: Op[]) {
      store.state.rollback(undo);
    },
    runBulk<T>(fn: (tx: Tx) => T) {
      const written = new Set<CollectionName>();
      const table = noTableWrites();
      const result = fn(tableTx(store.state.bulkTx(written), tables, table));
      store.state.rebuildIndexes(written);
      return { result, written, table };
    },
    prune() {
      return store.prune();
    },
    snapshot(seq: number) {
      return snapshotChunks(seq, store.state.snapshotSections());
    },
  };
}

/**
 * Takes the records of `tables` out of a state loaded from a base that still held them (written
 * before their collection moved to its table), as writes for it; null when it held none.
 */
function takeTabled(state: State, tables: ReadonlySet<CollectionName>): TableWrites | null {
  if (![...tables].some((c) => state.count(c))) return null;
  const w = noTableWrites();
  for (const c of tables)
    if (state.count(c)) w.writes.set(c, new Map([...state.values(c)].map((r) => [(r as { id: string }).id, r])));
  const written = new Set<CollectionName>();
  const tx = state.bulkTx(written);
  for (const c of tables) tx.clear(c);
  state.rebuildIndexes(written);
  return w;
}
