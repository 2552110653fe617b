import type { CollectionName, Tx } from '../records.js';
import type { Op } from '../state.js';
import type { TableReads } from './table-writes.js';
import type { TableWrites } from './write-set.js';

/** What the PostgreSQL log needs of the store it keeps durable. */
export interface SharedHost {
  /** The collections kept in tables (table-writes.ts). */
  readonly tables: ReadonlySet<CollectionName>;
  /** The sequence number of the last write applied to the state. */
  seq: number;
  /** Drops the state and loads `base` (null: empty) and then the journal rows, as at start-up. */
  reload(base: Buffer | null, baseSeq: number, rows: JournalRow[]): void;
  /** Applies another process's writes (maps and indexes). */
  applyRemote(ops: Op[]): void;
  /** Runs `fn` on the state (its table writes collected apart, its table reads from `reads`); throws (with its writes undone) if `fn` throws. */
  run<T>(fn: (tx: Tx) => T, reads: TableReads): { result: T; ops: Op[]; undo: Op[]; table: TableWrites };
  /** Undoes a transaction whose commit failed. */
  rollback(undo: Op[]): void;
  /** Runs a bulk load on the state (no undo: a failure reloads). */
  runBulk<T>(fn: (tx: Tx) => T): { result: T; written: Set<CollectionName>; table: TableWrites };
  /** Table records the last reload found in the base (written before they had their table), taken once. */
  takeHeld(): TableWrites | null;
  /** Deletes what nobody can use any more (expired tokens…), as a transaction. */
  prune(): { ops: Op[]; undo: Op[] } | null;
  /** The state as the snapshot's bytes, in chunks. */
  snapshot(seq: number): AsyncIterable<Buffer>;
}

export interface JournalRow {
  seq: number;
  ops: string;
}
