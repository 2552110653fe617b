import type { z } from 'zod';
import { operations } from '../../contract/operations.js';
import type { Page, UpdatePageBody } from './schemas.js';
import type { PageRecord } from '../../store/records.js';
import { implement } from '../../server/context.js';
import { ownRecords } from '../own.js';
import { mergeMember } from '../../server/merge-patch.js';
import { pagesPartition } from '../../store/indexes.js';
import { cachedJson, pageRecords } from '../../server/paging.js';

const pages = ownRecords('pages', 'page_not_found');

function present(rec: PageRecord): z.input<typeof Page> {
  const { workspace_id: _w, ...page } = rec;
  return page as z.input<typeof Page>;
}

/**
 * Members sent replace stored ones (`null` clears a text member); `chat` merges by JSON Merge
 * Patch; `published` moves the page's state to the value sent (the contract's page update rule).
 */
function updated(rec: PageRecord, body: z.output<typeof UpdatePageBody>, now: string): PageRecord {
  const { chat, ...replace } = body;
  const next: PageRecord = { ...rec, updated_at: now };
  for (const [key, value] of Object.entries(replace)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  }
  if (chat !== undefined) next.chat = mergeMember('chat', rec.chat, chat);
  return next;
}

const summarize = cachedJson((r: PageRecord) => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  published: r.published,
  updated_at: r.updated_at,
}));

export const pageHandlers = [
  // Each filter pages its own partition, and its cursors only fit that partition (the scope says which).
  implement(operations.listPages, ({ params, query, db }) => {
    const partition =
      query.published === undefined ? params.workspace : pagesPartition(params.workspace, query.published === 'true');
    return pageRecords(db, 'pagesByWorkspace', partition, {
      scope: `pages:${partition}`,
      cursor: query.cursor,
      limit: query.limit,
      map: summarize,
    });
  }),
  implement(operations.getPage, async ({ params, db }) => present(await pages.get(db, params.workspace, params.page))),
  implement(operations.updatePage, async ({ params, body, db }) =>
    present(await pages.patch(db, params.workspace, params.page, (rec, now) => updated(rec, body, now))),
  ),
];
