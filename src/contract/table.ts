import type { Route } from './route.js';
import { joinAreas, type Area } from '../api/areas.js';
import { accountRoutes } from '../api/account/routes.js';
import { listingRoutes } from '../api/listings/routes.js';
import { formRoutes } from '../api/forms/routes.js';
import { pageRoutes } from '../api/pages/routes.js';
import { knowledgeRoutes } from '../api/knowledge/routes.js';
import { engagementRoutes } from '../api/engagement/routes.js';
import { publicRoutes } from '../api/public/routes.js';
import { oauthRoutes } from '../api/oauth/routes.js';

export type { Access, HttpMethod, Route } from './route.js';

/**
 * The v1 operations without their schemas (route.ts says what a route holds), joined from the areas'
 * folders (src/api/areas.ts): an operation is added in its area, never here.
 */
export const routes = joinAreas({
  account: accountRoutes,
  listings: listingRoutes,
  forms: formRoutes,
  pages: pageRoutes,
  knowledge: knowledgeRoutes,
  engagement: engagementRoutes,
  public: publicRoutes,
  oauth: oauthRoutes,
} satisfies Record<Area, Record<string, Route>>);

export type OperationId = keyof typeof routes;

/** The route of an operation, or undefined for an unknown operationId (not even Object.prototype's names). */
export function routeOf(operationId: string): Route | undefined {
  return Object.hasOwn(routes, operationId) ? (routes as Record<string, Route>)[operationId] : undefined;
}

export const CONTRACT_VERSION = '1.0.0-alpha.1';
