import type { CollectionName } from '../records.js';

/** A transaction's writes to the tables: the collections it emptied first, then its puts (deletes: null) by id, the last one winning. */
export interface TableWrites {
  cleared: Set<CollectionName>;
  writes: Map<CollectionName, Map<string, unknown>>;
}

export const noTableWrites = (): TableWrites => ({ cleared: new Set(), writes: new Map() });

export const hasTableWrites = (w: TableWrites) => w.cleared.size > 0 || [...w.writes.values()].some((m) => m.size);
