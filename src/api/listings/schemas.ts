import { z } from 'zod';
import { noQuery, pagingQuery, Timestamp, Uuid, wsParam } from '../../contract/common.js';
import type { OperationId } from '../../contract/table.js';
import type { OperationSchemas } from '../../contract/route.js';

export const ListingTemplate = z
  .object({ slug: z.string(), name: z.string(), description: z.string() })
  .meta({ id: 'ListingTemplate' });

/** The built-in setup catalog of listing templates. */
export const LISTING_TEMPLATES: ReadonlyArray<z.infer<typeof ListingTemplate>> = [
  { slug: 'faq', name: 'FAQ', description: 'Questions and answers' },
  { slug: 'hours', name: 'Opening hours', description: 'When you are open, day by day' },
  { slug: 'links', name: 'Links', description: 'A list of useful links' },
  { slug: 'menu', name: 'Menu', description: 'Dishes or drinks with descriptions' },
  { slug: 'pricing', name: 'Pricing', description: 'Plans or price points' },
  { slug: 'services', name: 'Services', description: 'What you offer' },
  { slug: 'team', name: 'Team', description: 'The people behind the business' },
];

const TEMPLATE_SLUGS = new Set(LISTING_TEMPLATES.map((t) => t.slug));

export const ListingItem = z
  .strictObject({
    title: z.string().min(1).max(255),
    description: z.string().max(2000).optional(),
  })
  .meta({ id: 'ListingItem' });

export const CreateListingBody = z
  .strictObject({
    title: z.string().min(1).max(255),
    // Checked in the schema (not the handler) so one 422 names every failing field at once.
    template_slug: z
      .string()
      .min(1)
      .max(64)
      .refine((s) => TEMPLATE_SLUGS.has(s), {
        error: (i) =>
          `Unknown template \`${String(i.input)}\`; use one of: ${[...TEMPLATE_SLUGS].join(', ')} (GET /v1/setup/listing-templates).`,
        abort: true,
      })
      .meta({ description: 'Slug of a template in GET /setup/listing-templates.', examples: ['faq'] }),
    items: z.array(ListingItem).max(50).default([]),
  })
  .meta({ id: 'CreateListingBody' });

export const Listing = z
  .object({
    id: Uuid,
    title: z.string(),
    template_slug: z.string(),
    items: z.array(z.object({ title: z.string(), description: z.string().optional() })),
    button_id: Uuid.nullable(),
    dashboard_url: z.string(),
    created_at: Timestamp,
  })
  .meta({ id: 'Listing' });

export const ListingSummary = z
  .object({ id: Uuid, title: z.string(), dashboard_url: z.string() })
  .meta({ id: 'ListingSummary' });

/** The schemas of the listings area's operations (their routes: `routes.ts`). */
export const listingSchemas = {
  listListingTemplates: { params: z.strictObject({}), query: pagingQuery, body: undefined, response: ListingTemplate },
  createListing: { params: z.strictObject(wsParam), query: noQuery, body: CreateListingBody, response: Listing },
  listListings: { params: z.strictObject(wsParam), query: pagingQuery, body: undefined, response: ListingSummary },
  getListing: {
    params: z.strictObject({ ...wsParam, list: Uuid }),
    query: noQuery,
    body: undefined,
    response: Listing,
  },
} satisfies Partial<Record<OperationId, OperationSchemas>>;
