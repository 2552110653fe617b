import type { Ability } from './enums.js';

/**
 * The v1 operations without their schemas: everything the router, the client, the CLI's help and
 * the OpenAPI document say about an operation other than the shape of its data. It loads no zod,
 * so `wcm lists ls` finds its URL without compiling every schema; `operations.ts` attaches the
 * schemas to these entries by operationId, so each fact is written once.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * How a request is let in:
 * - `bearer`: a token with `ability` whose user is a member of the path's workspace (if any);
 * - `token`: any valid token (no ability, no workspace);
 * - `public`: no token; rate-limited, and `Idempotency-Key` required where `idempotent`;
 * - `signature`: no token; the handler verifies a signature over the raw body.
 */
export type Access = 'bearer' | 'token' | 'public' | 'signature';

export interface Route {
  method: HttpMethod;
  /** Relative to the base address (`/v1` or `/api/v1`), with `{param}` placeholders. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  ability?: Ability;
  status: 200 | 201;
  /** The response is a page of items (`data` is an array, `next_cursor` beside it). */
  list?: boolean;
  /** Public POSTs that need `Idempotency-Key`. */
  idempotent?: boolean;
  /** Whether a request may omit the body (every member optional). */
  bodyOptional?: boolean;
  /** Not in the seed contract: marked `x-extension: true` in the OpenAPI document; an instance without it answers 404 `route_not_found`. */
  extension?: boolean;
  /** The operation this one is a compatibility alias of. */
  aliasOf?: string;
  /** 404 code for each path parameter that names a resource. */
  notFound?: Record<string, string>;
}

export const routes = {
  getMe: {
    method: 'GET', path: '/me', tag: 'Workspaces', summary: 'The token holder, the token\'s abilities and the workspaces it reaches', access: 'token', status: 200, extension: true,
  },
  listListingTemplates: {
    method: 'GET', path: '/setup/listing-templates', tag: 'Knowledge', summary: 'List the listing templates of the setup catalog', access: 'token', status: 200, list: true, extension: true,
  },
  createListing: {
    method: 'POST', path: '/workspaces/{workspace}/lists', tag: 'Knowledge', summary: 'Create an unattached listing from a template', access: 'bearer', ability: 'content:write', status: 201, notFound: {workspace: 'workspace_not_found'},
  },
  listListings: {
    method: 'GET', path: '/workspaces/{workspace}/lists', tag: 'Knowledge', summary: 'List workspace listings (newest first)', access: 'bearer', ability: 'content:read', status: 200, list: true, notFound: {workspace: 'workspace_not_found'},
  },
  getForm: {
    method: 'GET', path: '/workspaces/{workspace}/forms/{form}', tag: 'Forms', summary: 'Get a form', access: 'bearer', ability: 'content:read', status: 200, extension: true, notFound: {workspace: 'workspace_not_found', form: 'form_not_found'},
  },
  updateForm: {
    method: 'PATCH', path: '/workspaces/{workspace}/forms/{form}', tag: 'Forms', summary: 'Update a form', access: 'bearer', ability: 'content:write', status: 200, notFound: {workspace: 'workspace_not_found', form: 'form_not_found'},
  },
  getPage: {
    method: 'GET', path: '/workspaces/{workspace}/pages/{page}', tag: 'Pages', summary: 'Get a page', access: 'bearer', ability: 'content:read', status: 200, extension: true, notFound: {workspace: 'workspace_not_found', page: 'page_not_found'},
  },
  updatePage: {
    method: 'PATCH', path: '/workspaces/{workspace}/pages/{page}', tag: 'Pages', summary: 'Update a page', access: 'bearer', ability: 'content:write', status: 200, notFound: {workspace: 'workspace_not_found', page: 'page_not_found'},
  },
  listArticles: {
    method: 'GET', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles', tag: 'Knowledge', summary: 'List the articles of a knowledge list', access: 'bearer', ability: 'content:read', status: 200, list: true, notFound: {workspace: 'workspace_not_found', list: 'knowledge_list_not_found'},
  },
  getArticle: {
    method: 'GET', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles/{article}', tag: 'Knowledge', summary: 'Get an article with all its versions', access: 'bearer', ability: 'content:read', status: 200, extension: true, notFound: {workspace: 'workspace_not_found', list: 'knowledge_list_not_found', article: 'article_not_found'},
  },
  restoreArticleVersion: {
    method: 'POST', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles/{article}/versions/{version}/restore', tag: 'Knowledge', summary: 'Restore an article version as a new current version', description: '`version` is a version number (1, 2, …) or a version id.', access: 'bearer', ability: 'content:write', status: 201, bodyOptional: true, notFound: {workspace: 'workspace_not_found', list: 'knowledge_list_not_found', article: 'article_not_found', version: 'version_not_found'},
  },
  listThreads: {
    method: 'GET', path: '/workspaces/{workspace}/threads', tag: 'Conversations', summary: 'List contact-centric multichannel threads (newest first)', access: 'bearer', ability: 'engagements:read', status: 200, list: true, notFound: {workspace: 'workspace_not_found'},
  },
  listInboxThreads: {
    method: 'GET', path: '/workspaces/{workspace}/inbox-threads', tag: 'Engagement inbox', summary: 'List threads (compatibility alias of listThreads)', access: 'bearer', ability: 'engagements:read', status: 200, list: true, aliasOf: 'listThreads', notFound: {workspace: 'workspace_not_found'},
  },
  getThread: {
    method: 'GET', path: '/workspaces/{workspace}/threads/{thread}', tag: 'Conversations', summary: 'Get one thread with its messages', access: 'bearer', ability: 'engagements:read', status: 200, extension: true, notFound: {workspace: 'workspace_not_found', thread: 'thread_not_found'},
  },
  listBookings: {
    method: 'GET', path: '/workspaces/{workspace}/bookings', tag: 'Booking', summary: 'List bookings (soonest first)', access: 'bearer', ability: 'engagements:read', status: 200, list: true, notFound: {workspace: 'workspace_not_found'},
  },
  listVoiceInteractions: {
    method: 'GET', path: '/workspaces/{workspace}/voice-interactions', tag: 'Telephony', summary: 'List recent inbound calls and web voice messages (newest first)', access: 'bearer', ability: 'engagements:read', status: 200, list: true, notFound: {workspace: 'workspace_not_found'},
  },
  createPaymentIntent: {
    method: 'POST', path: '/public/commerce/offers/{offer}/payment-intents', tag: 'Commerce', summary: 'Create a one-time commerce order and card payment intent', access: 'public', status: 201, idempotent: true, bodyOptional: true, notFound: {offer: 'offer_not_found'},
  },
  recordAgentChatOpened: {
    method: 'POST', path: '/public/agents/{agent}/analytics-events/opened', tag: 'Public actions', summary: 'Record an agent chat open', access: 'public', status: 201, idempotent: true, bodyOptional: true, notFound: {agent: 'agent_not_found'},
  },
  receivePaymentNotification: {
    method: 'POST', path: '/webhooks/payments', tag: 'Commerce', summary: 'Receive a signed payment notification (Stripe event format)', access: 'signature', status: 200, extension: true,
  },
  getListing: {
    method: 'GET', path: '/workspaces/{workspace}/lists/{list}', tag: 'Knowledge', summary: 'Get a listing', access: 'bearer', ability: 'content:read', status: 200, extension: true, notFound: {workspace: 'workspace_not_found', list: 'listing_not_found'},
  },
  listForms: {
    method: 'GET', path: '/workspaces/{workspace}/forms', tag: 'Forms', summary: 'List the workspace\'s forms, most recently updated first (never updated last)', access: 'bearer', ability: 'content:read', status: 200, list: true, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  listPages: {
    method: 'GET', path: '/workspaces/{workspace}/pages', tag: 'Pages', summary: 'List the workspace\'s pages, most recently updated first (never updated last)', access: 'bearer', ability: 'content:read', status: 200, list: true, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  listKnowledgeLists: {
    method: 'GET', path: '/workspaces/{workspace}/knowledge-lists', tag: 'Knowledge', summary: 'List the workspace\'s knowledge lists, by name', access: 'bearer', ability: 'content:read', status: 200, list: true, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  listOffers: {
    method: 'GET', path: '/workspaces/{workspace}/offers', tag: 'Commerce', summary: 'List the workspace\'s offers, by title', access: 'bearer', ability: 'content:read', status: 200, list: true, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  listAgents: {
    method: 'GET', path: '/workspaces/{workspace}/agents', tag: 'Public actions', summary: 'List the workspace\'s agents, by name', access: 'bearer', ability: 'content:read', status: 200, list: true, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  createOAuthApp: {
    method: 'POST', path: '/workspaces/{workspace}/oauth-apps', tag: 'OAuth', summary: 'Register an OAuth application (a confidential one\'s secret is in this response only)', access: 'bearer', ability: 'workspaces:write', status: 201, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  listOAuthApps: {
    method: 'GET', path: '/workspaces/{workspace}/oauth-apps', tag: 'OAuth', summary: 'List the OAuth applications registered in the workspace, newest first', access: 'bearer', ability: 'workspaces:read', status: 200, list: true, extension: true, notFound: {workspace: 'workspace_not_found'},
  },
  deleteOAuthApp: {
    method: 'DELETE', path: '/workspaces/{workspace}/oauth-apps/{app}', tag: 'OAuth', summary: 'Delete an OAuth application and revoke every token it was issued', access: 'bearer', ability: 'workspaces:write', status: 200, extension: true, notFound: {workspace: 'workspace_not_found', app: 'oauth_app_not_found'},
  },
  listOAuthGrants: {
    method: 'GET', path: '/me/oauth-grants', tag: 'OAuth', summary: 'List what the token\'s user authorized OAuth applications to do, newest first', access: 'token', status: 200, list: true, extension: true,
  },
  revokeOAuthGrant: {
    method: 'DELETE', path: '/me/oauth-grants/{grant}', tag: 'OAuth', summary: 'Revoke one of the user\'s OAuth grants and every token issued under it', access: 'token', status: 200, extension: true, notFound: {grant: 'oauth_grant_not_found'},
  },
} as const satisfies Record<string, Route>;

export type OperationId = keyof typeof routes;

/** The route of an operation, or undefined for an unknown operationId (not even Object.prototype's names). */
export function routeOf(operationId: string): Route | undefined {
  return Object.hasOwn(routes, operationId) ? (routes as Record<string, Route>)[operationId] : undefined;
}

export const CONTRACT_VERSION = '1.0.0-alpha.1';
