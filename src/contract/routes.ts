import type { Access, HttpMethod, OperationId } from './operations.js';

/**
 * What the client needs to call an operation, without zod: method, path, access, whether it
 * takes an `Idempotency-Key`, and whether it is an extension (so a 404 `route_not_found` can be
 * told as "this server does not have it"). A copy of those fields of the operations table (the source of
 * truth), kept apart so `wcm lists ls` does not load zod and every schema to find a URL. The types
 * make a missing or extra operation a compile error; test/contract/routes.test.ts checks the values.
 */
export interface Route {
  method: HttpMethod;
  /** Relative to the base address, with `{param}` placeholders. */
  path: string;
  access: Access;
  idempotent: boolean;
  /** Not in the seed contract: an instance without it answers 404 `route_not_found`. */
  extension?: true;
}

export const routes = {
  getMe: { method: 'GET', path: '/me', access: 'token', idempotent: false, extension: true },
  listListingTemplates: { method: 'GET', path: '/setup/listing-templates', access: 'token', idempotent: false, extension: true },
  createListing: { method: 'POST', path: '/workspaces/{workspace}/lists', access: 'bearer', idempotent: false },
  listListings: { method: 'GET', path: '/workspaces/{workspace}/lists', access: 'bearer', idempotent: false },
  getForm: { method: 'GET', path: '/workspaces/{workspace}/forms/{form}', access: 'bearer', idempotent: false, extension: true },
  updateForm: { method: 'PATCH', path: '/workspaces/{workspace}/forms/{form}', access: 'bearer', idempotent: false },
  getPage: { method: 'GET', path: '/workspaces/{workspace}/pages/{page}', access: 'bearer', idempotent: false, extension: true },
  updatePage: { method: 'PATCH', path: '/workspaces/{workspace}/pages/{page}', access: 'bearer', idempotent: false },
  listArticles: { method: 'GET', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles', access: 'bearer', idempotent: false },
  getArticle: { method: 'GET', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles/{article}', access: 'bearer', idempotent: false, extension: true },
  restoreArticleVersion: { method: 'POST', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles/{article}/versions/{version}/restore', access: 'bearer', idempotent: false },
  listThreads: { method: 'GET', path: '/workspaces/{workspace}/threads', access: 'bearer', idempotent: false },
  listInboxThreads: { method: 'GET', path: '/workspaces/{workspace}/inbox-threads', access: 'bearer', idempotent: false },
  getThread: { method: 'GET', path: '/workspaces/{workspace}/threads/{thread}', access: 'bearer', idempotent: false, extension: true },
  listBookings: { method: 'GET', path: '/workspaces/{workspace}/bookings', access: 'bearer', idempotent: false },
  listVoiceInteractions: { method: 'GET', path: '/workspaces/{workspace}/voice-interactions', access: 'bearer', idempotent: false },
  createPaymentIntent: { method: 'POST', path: '/public/commerce/offers/{offer}/payment-intents', access: 'public', idempotent: true },
  recordAgentChatOpened: { method: 'POST', path: '/public/agents/{agent}/analytics-events/opened', access: 'public', idempotent: true },
  receivePaymentNotification: { method: 'POST', path: '/webhooks/payments', access: 'signature', idempotent: false, extension: true },
  getListing: { method: 'GET', path: '/workspaces/{workspace}/lists/{list}', access: 'bearer', idempotent: false, extension: true },
  listForms: { method: 'GET', path: '/workspaces/{workspace}/forms', access: 'bearer', idempotent: false, extension: true },
  listPages: { method: 'GET', path: '/workspaces/{workspace}/pages', access: 'bearer', idempotent: false, extension: true },
  listKnowledgeLists: { method: 'GET', path: '/workspaces/{workspace}/knowledge-lists', access: 'bearer', idempotent: false, extension: true },
  listOffers: { method: 'GET', path: '/workspaces/{workspace}/offers', access: 'bearer', idempotent: false, extension: true },
  listAgents: { method: 'GET', path: '/workspaces/{workspace}/agents', access: 'bearer', idempotent: false, extension: true },
  createOAuthApp: { method: 'POST', path: '/workspaces/{workspace}/oauth-apps', access: 'bearer', idempotent: false, extension: true },
  listOAuthApps: { method: 'GET', path: '/workspaces/{workspace}/oauth-apps', access: 'bearer', idempotent: false, extension: true },
  deleteOAuthApp: { method: 'DELETE', path: '/workspaces/{workspace}/oauth-apps/{app}', access: 'bearer', idempotent: false, extension: true },
  listOAuthGrants: { method: 'GET', path: '/me/oauth-grants', access: 'token', idempotent: false, extension: true },
  revokeOAuthGrant: { method: 'DELETE', path: '/me/oauth-grants/{grant}', access: 'token', idempotent: false, extension: true },
} as const satisfies Record<OperationId, Route>;

/** The route of an operation, or undefined for an unknown operationId. */
export function routeOf(operationId: string): Route | undefined {
  return Object.hasOwn(routes, operationId) ? (routes as Record<string, Route>)[operationId] : undefined;
}
