import { operations, type AnyOperation } from '../../contract/operations.js';
import type { IndexOf, Page as StorePage, ReadTx, SortKey } from '../../store/engine/interface.js';
import { INDEXES, type IndexName } from '../../store/indexes.js';
import type { CollectionName, RecordTypes } from '../../store/records.js';
import type { RequestInfo } from '../context.js';
import { invoke, type InvokeCore, type SessionPrincipal } from '../invoke.js';
import { ProblemError, validationFailed } from '../problems.js';
import { JsonItem, pageRecords, type Page } from '../paging.js';
import type { Html } from '../web/html.js';

/** Rows per page, as the issue asks (the API's default is 25; 50 is within its 1–100). */
export const PAGE_SIZE = 50;

/** What the dashboard's data access needs: the server's own store, clock, services and handlers, and the session. */
export interface DataEnv extends InvokeCore {
  info: RequestInfo;
  signed: SessionPrincipal['session'];
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Row = Record<string, any>;

/**
 * Runs a v1 operation in-process through `invoke`, as the signed-in session: the dashboard reads
 * exactly what the API would answer, with the same checks (ability, membership, ids in any case),
 * indexes and paging (cursors are the API's).
 */
export async function callOperation(
  env: DataEnv,
  operationId: string,
  params: Record<string, string>,
  query: Record<string, string | undefined> = {},
): Promise<unknown> {
  const op = (operations as unknown as Record<string, AnyOperation>)[operationId];
  const given: Record<string, string> = Object.create(null);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') given[k] = v;
  if (op.list) given.limit = String(PAGE_SIZE);
  try {
    const result = await invoke(env, op, { params, query: given }, { session: env.signed }, { request: env.info });
    return result.page ?? result.data;
  } catch (err) {
    // The query is the address's filters: the page says so (the dashboard sends no body).
    if (err instanceof ProblemError && err.code === 'validation_failed')
      throw validationFailed(err.errors ?? {}, 'Invalid filters in the address.');
    throw err;
  }
}

/** Table rows as UTF-8 bytes, spliced into the page where `table` put ROWS_MARKER (see chrome.ts). */
export interface RowBytes {
  count: number;
  bytes: Buffer[];
}

/** A page of a list operation, ready to become table rows. */
export interface ListPage {
  next_cursor: string | null;
  /** The items' ids, in order: to read the records a row shows more of than the item. */
  ids(): string[];
  /**
   * Each item as a row, as bytes. `render` must depend on the item and `variant` alone: for items
   * the handler serialized once per record version (JsonItem), the row is rendered and encoded once
   * per version and variant, so a page of the 100,000-thread inbox costs about what the API's page
   * costs (which splices cached JSON the same way).
   */
  rows(variant: string, render: (item: Row) => Html): RowBytes;
}

const renderedRows = new WeakMap<JsonItem, { variant: string; bytes: Buffer }>();

/** A list operation's page (the handler's own, so its cursor is the API's). */
export async function listPage(
  env: DataEnv,
  operationId: string,
  params: Record<string, string>,
  query: Record<string, string | undefined>,
): Promise<ListPage> {
  const page = (await callOperation(env, operationId, params, query)) as Page<unknown>;
  return {
    next_cursor: page.next_cursor,
    ids: () => page.items.map((item) => ((item instanceof JsonItem ? item.toJSON() : item) as Row).id as string),
    rows: (variant, render) => ({
      count: page.items.length,
      bytes: page.items.map((item) => {
        if (!(item instanceof JsonItem)) return Buffer.from(render(item as Row).text);
        const hit = renderedRows.get(item);
        if (hit?.variant === variant) return hit.bytes;
        const bytes = Buffer.from(render(item.toJSON() as Row).text);
        renderedRows.set(item, { variant, bytes });
        return bytes;
      }),
    }),
  };
}

/** The records with these ids, each read once, by id (a missing one is absent): what a page's rows name. */
export async function recordsById<C extends CollectionName>(
  tx: ReadTx,
  c: C,
  ids: Iterable<string>,
): Promise<Map<string, RecordTypes[C]>> {
  const unique = [...new Set(ids)];
  const recs = await Promise.all(unique.map((id) => tx.get(c, id)));
  const out = new Map<string, RecordTypes[C]>();
  recs.forEach((rec, i) => rec && out.set(unique[i], rec));
  return out;
}

/** The per-workspace indexes of records without a list operation yet (orders, analytics events). */
type WorkspaceIndex = 'ordersByWorkspace' | 'eventsByWorkspace';

/** A page of a workspace's records from its index, newest first, with the dashboard's own cursors. */
export function pageWorkspaceIndex<N extends WorkspaceIndex>(
  tx: ReadTx,
  index: N,
  workspaceId: string,
  cursor?: string,
): Promise<Page<RecordTypes[(typeof INDEXES)[N]['collection']]>> {
  return pageRecords(tx, index, workspaceId, {
    scope: JSON.stringify(['dashboard', index, workspaceId]),
    cursor,
    limit: PAGE_SIZE,
    map: (r) => r,
  });
}

/** How many records an index holds in one partition (the partition's length in memory, a count on PostgreSQL). */
export function indexCount(tx: ReadTx, index: IndexName, partition: string): Promise<number> {
  return tx.count(INDEXES[index].collection, index as never, partition);
}

/** Records read per step when reading a whole partition. */
const STEP = 100;

/** Every record of one partition of an index, in its order (for partitions that stay small: a user's workspaces, a workspace's OAuth apps). */
export async function wholePartition<C extends CollectionName, N extends IndexOf<C>>(
  tx: ReadTx,
  c: C,
  index: N,
  partition: string,
): Promise<Array<RecordTypes[C]>> {
  const out: Array<RecordTypes[C]> = [];
  let after: SortKey | null = null;
  for (;;) {
    const page: StorePage<RecordTypes[C]> = await tx.page(c, index, { partition, after, limit: STEP });
    out.push(...page.items);
    if (!page.more) return out;
    after = page.last;
  }
}
