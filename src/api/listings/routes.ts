import type { Route } from '../../contract/route.js';

/** The listings area's operations, zod-free (the CLI finds its URLs without loading a schema); schemas in `schemas.ts`, handlers beside them. */
// The contract's tag set has no tag of its own for listings; they are lists of titled items, filed
// under Knowledge ("knowledge lists and articles") as the published OpenAPI document has them.
export const listingRoutes = {
  listListingTemplates: {
    method: 'GET',
    path: '/setup/listing-templates',
    tag: 'Knowledge',
    summary: 'List the listing templates of the setup catalog',
    access: 'token',
    status: 200,
    list: true,
    extension: true,
  },
  createListing: {
    method: 'POST',
    path: '/workspaces/{workspace}/lists',
    tag: 'Knowledge',
    summary: 'Create an unattached listing from a template',
    access: 'bearer',
    ability: 'content:write',
    status: 201,
    notFound: { workspace: 'workspace_not_found' },
    example: { body: { title: 'FAQ', template_slug: 'faq', items: [{ title: 'Q', description: 'A' }] } },
  },
  listListings: {
    method: 'GET',
    path: '/workspaces/{workspace}/lists',
    tag: 'Knowledge',
    summary: 'List workspace listings (newest first)',
    access: 'bearer',
    ability: 'content:read',
    status: 200,
    list: true,
    notFound: { workspace: 'workspace_not_found' },
  },
  getListing: {
    method: 'GET',
    path: '/workspaces/{workspace}/lists/{list}',
    tag: 'Knowledge',
    summary: 'Get a listing',
    access: 'bearer',
    ability: 'content:read',
    status: 200,
    extension: true,
    notFound: { workspace: 'workspace_not_found', list: 'listing_not_found' },
  },
} as const satisfies Record<string, Route>;
