import type { FileLayer } from './files.js';

/** Loads of more records than this are written as the snapshot (Store.bulk), not journaled. */
export const BULK_RECORDS = 1000;

export interface StoreOptions {
  files?: FileLayer;
  /** Compact the journal into the snapshot when it grows past this many bytes. */
  compactBytes?: number;
  /** Batches in flight at once, 1 to 4 (default: defaultPipelineDepth()). */
  pipelineDepth?: number;
  /** Read-only: no lock, no journal writes, a torn tail is skipped rather than cut. */
  readOnly?: boolean;
}
