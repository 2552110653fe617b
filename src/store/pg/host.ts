import type { CollectionName, Tx } from '../records.js';
import { loadBase, replayOps } from '../recover.js';
import { snapshotChunks } from '../snapshot-writer.js';
import { State, StoreCorruptError, type Op } from '../state.js';
import type { StoreView as Store } from '../view.js';
import type { JournalRow, SharedHost } from './log.js';

/** What the PostgreSQL log does to the store's state in memory. */
export function sharedHost(store: Store): SharedHost {
  return {
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
      store.state = state;
      store.seq = loaded.seq;
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
    run<T>(fn: (tx: Tx) => T) {
      const ops: Op[] = [];
      const undo: Op[] = [];
      let result: T;
      try {
        result = fn(store.state.tx(ops, undo));
      } catch (err) {
        store.state.rollback(undo, false);
        throw err;
      }
      store.state.reindex(ops, undo);
      return { result, ops, undo };
    },
    rollback(undo: Op[]) {
      store.state.rollback(undo);
    },
    runBulk<T>(fn: (tx: Tx) => T) {
      const written = new Set<CollectionName>();
      const result = fn(store.state.bulkTx(written));
      store.state.rebuildIndexes(written);
      return { result, written };
    },
    prune() {
      return store.prune();
    },
    snapshot(seq: number) {
      return snapshotChunks(seq, store.state.snapshotSections());
    },
  };
}
