import { randomUUID } from 'node:crypto';
import { operations } from '../../contract/operations.js';
import type { ListingRecord } from '../../store/records.js';
import { implement, txTimestamp } from '../../server/context.js';
import { pageEntries, pageRecords } from '../../server/paging.js';
import { notFound } from '../../server/problems.js';
import { compareKeys } from '../../store/sorted-index.js';
import { LISTING_TEMPLATES } from './schemas.js';

const templateEntries = LISTING_TEMPLATES.map((t) => ({ key: [t.slug], rec: t }));

/** Where the listing is managed in this server's dashboard: its own origin, never the request's Host. */
export function dashboardUrl(origin: string, rec: ListingRecord): string {
  return `${origin}/dashboard/workspaces/${rec.workspace_id}/lists/${rec.id}`;
}

/** The record without workspace_id, plus dashboard_url (built directly: no rest/spread copies). */
function presentListing(rec: ListingRecord, origin: string) {
  return {
    id: rec.id,
    title: rec.title,
    template_slug: rec.template_slug,
    items: rec.items,
    button_id: rec.button_id,
    created_at: rec.created_at,
    dashboard_url: dashboardUrl(origin, rec),
  };
}

export const listingHandlers = [
  // A new id each run: a retried transaction creates its own record, never a second copy.
  implement(operations.createListing, async ({ params, body, db, request }) => {
    const rec = await db.write(async (tx) =>
      tx.create('listings', {
        id: randomUUID(),
        workspace_id: params.workspace,
        title: body.title,
        template_slug: body.template_slug,
        items: body.items.map((i) =>
          i.description === undefined ? { title: i.title } : { title: i.title, description: i.description },
        ),
        button_id: null,
        created_at: await txTimestamp(tx),
      }),
    );
    return presentListing(rec, request.origin);
  }),
  // Another workspace's listing is as unknown as a missing one.
  implement(operations.getListing, async ({ params, db, request }) => {
    const rec = await db.read((tx) => tx.get('listings', params.list));
    if (!rec || rec.workspace_id !== params.workspace) throw notFound('listing_not_found', params.list);
    return presentListing(rec, request.origin);
  }),
  implement(operations.listListings, ({ params, query, db, request }) =>
    pageRecords(db, 'listingsByWorkspace', params.workspace, {
      scope: `listings:${params.workspace}`,
      cursor: query.cursor,
      limit: query.limit,
      map: (r) => ({ id: r.id, title: r.title, dashboard_url: dashboardUrl(request.origin, r) }),
    }),
  ),
  implement(operations.listListingTemplates, ({ query }) =>
    pageEntries(
      templateEntries,
      (key, after) => {
        const i = templateEntries.findIndex((e) =>
          after ? compareKeys(e.key, key) > 0 : compareKeys(e.key, key) >= 0,
        );
        return i === -1 ? templateEntries.length : i;
      },
      { scope: 'listListingTemplates', cursor: query.cursor, limit: query.limit, map: (t) => t },
    ),
  ),
];
