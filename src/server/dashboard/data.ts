import { operations, type AnyOperation } from '../../contract/operations.js';
import type { RecordIndex, RecordOfIndex, RecordSlice } from '../../store/record-repository.js';
import type { CollectionName, RecordTypes } from '../../store/records.js';
import type { Store } from '../../store/store.js';
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

/** Rows rendered here (records read directly) as RowBytes. */
export const rowBytes = (rows: Html[]): RowBytes => ({
  count: rows.length,
  bytes: rows.map((r) => Buffer.from(r.text)),
});

/** The records with these ids, each read once, by id (a missing one is absent): what a page's rows name. */
export async function recordsById<C extends CollectionName>(
  store: Store,
  c: C,
  ids: Iterable<string>,
): Promise<Map<string, RecordTypes[C]>> {
  const unique = [...new Set(ids)];
  const recs = await Promise.all(unique.map((id) => store.records.get(c, id)));
  const out = new Map<string, RecordTypes[C]>();
  recs.forEach((rec, i) => rec && out.set(unique[i], rec));
  return out;
}

/** The indexes kept across workspaces (orders, analytics events: no per-workspace index, no list operation yet). */
type AcrossIndex = 'ordersByCreated' | 'eventsByOccurred';

/** A workspace's records from an index kept across workspaces, newest first; the scan stops once the page is full, as the API's lists do. */
export function pageAcrossIndex<N extends AcrossIndex>(
  store: Store,
  index: N,
  workspaceId: string,
  cursor?: string,
): Promise<Page<RecordOfIndex<N>>> {
  return pageRecords(store.records, index, '*', {
    scope: JSON.stringify(['dashboard', index, workspaceId]),
    cursor,
    limit: PAGE_SIZE,
    filter: (r) => r.workspace_id === workspaceId,
    map: (r) => r,
  });
}

/** How many records an index holds in one partition (no scan: the partition's length in memory). */
export function indexCount(store: Store, index: RecordIndex, partition: string): Promise<number> {
  return store.records.count(index, partition);
}

/** Records read per step when counting a workspace's share of an index kept across workspaces. */
const COUNT_STEP = 1000;

/** How many of a workspace's records an index kept across workspaces holds (a scan: orders and events have no per-workspace index). */
export async function countAcrossIndex(store: Store, index: AcrossIndex, workspaceId: string): Promise<number> {
  const filter = (r: { workspace_id: string }) => r.workspace_id === workspaceId;
  let n = 0;
  let slice: RecordSlice<unknown> | undefined;
  do {
    slice = await store.records.page(index, '*', { after: slice?.last, limit: COUNT_STEP, filter });
    n += slice.items.length;
  } while (slice.more);
  return n;
}
