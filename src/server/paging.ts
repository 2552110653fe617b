import { createHash } from 'node:crypto';
import { scanEntries, type IndexEntry, type SortedIndex, type SortKey } from '../store/sorted-index.js';
import { ProblemError } from './problems.js';
import { INDEXES, type IndexName } from '../store/indexes.js';
import type { RecordTypes } from '../store/records.js';
import type { ReadTx, StoreEngine } from '../store/engine/interface.js';

/** One page of a list operation, as handlers return it. */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * A page item already serialized as JSON. Records are frozen and replaced whole, never mutated, so
 * an item computed from a record alone can be cached by the record's identity: on a 100,000-thread
 * store, serializing a page of 50 summaries was half the CPU of a listThreads request.
 */
export class JsonItem {
  private utf8: Buffer | undefined;
  private inString: Buffer | undefined;
  constructor(readonly text: string) {}
  /** The text as UTF-8, encoded once: pages are assembled from bytes, never re-encoded per request. */
  get bytes(): Buffer {
    return (this.utf8 ??= Buffer.from(this.text, 'utf8'));
  }
  /**
   * The text escaped as the inside of a JSON string, as UTF-8, made on first use and then kept:
   * an MCP tool result carries its page a second time, as text (`/mcp`), and escaping 24 KB per
   * request was most of that call's cost.
   */
  get quotedBytes(): Buffer {
    return (this.inString ??= Buffer.from(JSON.stringify(this.text).slice(1, -1), 'utf8'));
  }
  /** Anything that serializes the page normally still gets the same value. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/**
 * Wraps a `map` that depends on the record ONLY (not on the request) so each record is serialized
 * once; the App splices the cached text into the envelope. A replaced record is a new object, so
 * the cache can never serve a stale item, and entries go with their records (WeakMap). Create it
 * once per module, not per request. Typed as the item it stands for: it serializes to exactly that.
 */
export function cachedJson<T extends object, R>(map: (rec: T) => R): (rec: T) => R {
  const cache = new WeakMap<T, JsonItem>();
  return (rec) => {
    let item = cache.get(rec);
    if (!item) cache.set(rec, (item = new JsonItem(JSON.stringify(map(rec)))));
    return item as unknown as R;
  };
}

const check = (scope: string, key: SortKey) =>
  createHash('sha256').update(scope).update(JSON.stringify(key)).digest('base64url').slice(0, 10);

/** An opaque cursor: base64url of the sort key of the last item, with a check against tampering. */
export function encodeCursor(scope: string, key: SortKey): string {
  return Buffer.from(JSON.stringify([key, check(scope, key)])).toString('base64url');
}

export const MAX_CURSOR_LENGTH = 1024;

export function decodeCursor(scope: string, cursor: string): SortKey {
  const bad = () =>
    new ProblemError('invalid_cursor', {
      detail: 'The `cursor` cannot be decoded: it was changed, truncated, or comes from another list.',
      errors: { cursor: ['Invalid cursor.'] },
    });
  // Our cursors are a few hundred characters at most; anything longer was not made here.
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 2 || !Array.isArray(v[0]) || typeof v[1] !== 'string') throw bad();
  const key = v[0] as SortKey;
  // NUL is never in a key this server made, and PostgreSQL's text cannot hold it (its query would fail).
  if (!key.every((k) => k === null || (typeof k === 'string' && !k.includes('\0')) || typeof k === 'number'))
    throw bad();
  if (check(scope, key) !== v[1]) throw bad();
  return key;
}

/**
 * Keyset paging over a sorted index partition: starts strictly after the cursor's key, so records
 * inserted between pages never cause duplicates or skips. `filter` picks matching records and
 * `map` shapes them; scanning stops as soon as the page is full.
 */
export function pageIndex<T extends { id: string }, R>(
  index: SortedIndex<T>,
  partition: string,
  opts: { scope: string; cursor?: string; limit: number; filter?: (rec: T) => boolean; map: (rec: T) => R },
): Page<R> {
  const entries = index.entries(partition);
  return pageEntries(entries, (key, after) => index.seek(entries, key, after), opts);
}

/** Keyset paging over entries already sorted by `key` (for small in-memory lists). */
export function pageEntries<T, R>(
  entries: ReadonlyArray<IndexEntry<T>>,
  seek: (key: SortKey, after: boolean) => number,
  opts: { scope: string; cursor?: string; limit: number; filter?: (rec: T) => boolean; map: (rec: T) => R },
): Page<R> {
  const start = opts.cursor ? seek(decodeCursor(opts.scope, opts.cursor), true) : 0;
  const { recs, last, more } = scanEntries(entries, start, opts.limit, opts.filter);
  return { items: recs.map(opts.map), next_cursor: more && last ? encodeCursor(opts.scope, last) : null };
}

/** Where pageRecords reads: a transaction already open, or the store (a read of its own). */
export type PageSource = ReadTx | StoreEngine;

/** The indexes pageRecords pages through, and the records along each. */
export type RecordIndex = IndexName;
export type RecordOfIndex<N extends RecordIndex> = RecordTypes[(typeof INDEXES)[N]['collection']];

/**
 * Keyset paging along one of the store's indexes (indexes.ts), inside `src` (a transaction) or in a
 * read of its own (a StoreEngine): the same cursors as pageIndex, whichever engine answers.
 * `from`/`to` bound the sort key (bookings' time range).
 */
export async function pageRecords<N extends RecordIndex, R>(
  src: PageSource,
  index: N,
  partition: string,
  opts: {
    scope: string;
    cursor?: string;
    limit: number;
    filter?: (rec: RecordOfIndex<N>) => boolean;
    map: (rec: RecordOfIndex<N>) => R;
    from?: SortKey;
    to?: SortKey;
  },
): Promise<Page<R>> {
  const after = opts.cursor ? decodeCursor(opts.scope, opts.cursor) : null;
  const q = { after, limit: opts.limit, filter: opts.filter, from: opts.from, to: opts.to };
  const c = INDEXES[index].collection;
  const read = (tx: ReadTx) =>
    tx.page(c, index as never, { partition, ...q } as never) as unknown as Promise<{
      items: RecordOfIndex<N>[];
      last: SortKey | null;
      more: boolean;
    }>;
  const { items, last, more } = 'write' in src ? await src.read(read) : await read(src);
  return { items: items.map(opts.map), next_cursor: more && last ? encodeCursor(opts.scope, last) : null };
}
