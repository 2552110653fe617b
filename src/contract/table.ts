import type { Route } from './route.js';
import { accountRoutes } from './routes/account.js';
import { listingRoutes } from './routes/listings.js';
import { formRoutes } from './routes/forms.js';
import { pageRoutes } from './routes/pages.js';
import { knowledgeRoutes } from './routes/knowledge.js';
import { engagementRoutes } from './routes/engagement.js';
import { publicRoutes } from './routes/public.js';
import { oauthRoutes } from './routes/oauth.js';

export type { Access, HttpMethod, Route } from './route.js';

/**
 * The v1 operations without their schemas (route.ts says what a route holds), joined from the areas'
 * files: an operation is added in its area, never here.
 */
export const routes = {
  ...accountRoutes,
  ...listingRoutes,
  ...formRoutes,
  ...pageRoutes,
  ...knowledgeRoutes,
  ...engagementRoutes,
  ...publicRoutes,
  ...oauthRoutes,
} as const satisfies Record<string, Route>;

export type OperationId = keyof typeof routes;

/** The route of an operation, or undefined for an unknown operationId (not even Object.prototype's names). */
export function routeOf(operationId: string): Route | undefined {
  return Object.hasOwn(routes, operationId) ? (routes as Record<string, Route>)[operationId] : undefined;
}

export const CONTRACT_VERSION = '1.0.0-alpha.1';
