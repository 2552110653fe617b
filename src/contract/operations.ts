import { z } from 'zod';
import type { Ability } from './common.js';
import { PagingQuery, Uuid } from './common.js';
import { CreateListingBody, Listing, ListingSummary, ListingTemplate } from './listings.js';
import { Form, UpdateFormBody } from './forms.js';
import { Page, UpdatePageBody } from './pages.js';
import { Article, ArticleSummary, RestoreVersionBody, RestoredVersion } from './knowledge.js';
import { Booking, BookingsQuery, Thread, ThreadSummary, ThreadsQuery, VoiceInteraction, VoiceQuery } from './engagement.js';
import {
  AgentChatOpened,
  AgentChatOpenedBody,
  CreatePaymentIntentBody,
  CreatedPaymentIntent,
  PaymentNotificationReceipt,
} from './public.js';
import { Me } from './account.js';
import { ClientId, CreateOAuthAppBody, CreatedOAuthApp, GrantId, OAuthApp, OAuthGrant } from './oauth.js';
import { AgentSummary, FormSummary, KnowledgeListSummary, OfferSummary, PageSummary, PagesQuery } from './finding.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * How a request is let in:
 * - `bearer`: a token with `ability` whose user is a member of the path's workspace (if any);
 * - `token`: any valid token (no ability, no workspace);
 * - `public`: no token; rate-limited, and `Idempotency-Key` required where `idempotent`;
 * - `signature`: no token; the handler verifies a signature over the raw body.
 */
export type Access = 'bearer' | 'token' | 'public' | 'signature';

/** One v1 operation: everything the router, validator, OpenAPI document and client need. */
export interface Operation<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> {
  operationId: string;
  method: HttpMethod;
  /** Relative to the base address (`/v1` or `/api/v1`). */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  ability?: Ability;
  params: P;
  query: Q;
  body: B;
  /** Whether a request may omit the body (every member optional). */
  bodyOptional?: boolean;
  /** The schema of `data` (for lists: of one item). */
  response: R;
  status: 200 | 201;
  list?: boolean;
  /** Public POSTs that need `Idempotency-Key`. */
  idempotent?: boolean;
  /** Not in the seed contract: marked `x-extension: true` in the OpenAPI document. */
  extension?: boolean;
  /** The operation this one is a compatibility alias of. */
  aliasOf?: string;
  /** 404 code for each path parameter that names a resource. */
  notFound?: Record<string, string>;
}

const noQuery = z.strictObject({});
const pagingQuery = z.strictObject({ ...PagingQuery });
const ws = { workspace: Uuid };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function op<const O extends Operation<any, any, any, any>>(o: O): O {
  return o;
}

export const operations = {
  getMe: op({
    operationId: 'getMe', method: 'GET', path: '/me', tag: 'Workspaces', extension: true,
    summary: 'The token holder, the token\'s abilities and the workspaces it reaches',
    access: 'token', params: z.strictObject({}), query: noQuery, body: undefined, response: Me, status: 200,
  }),
  listListingTemplates: op({
    operationId: 'listListingTemplates', method: 'GET', path: '/setup/listing-templates', tag: 'Knowledge', extension: true,
    summary: 'List the listing templates of the setup catalog',
    access: 'token', params: z.strictObject({}), query: pagingQuery, body: undefined, response: ListingTemplate, status: 200, list: true,
  }),
  createListing: op({
    operationId: 'createListing', method: 'POST', path: '/workspaces/{workspace}/lists', tag: 'Knowledge',
    summary: 'Create an unattached listing from a template',
    access: 'bearer', ability: 'content:write', params: z.strictObject(ws), query: noQuery, body: CreateListingBody,
    response: Listing, status: 201, notFound: { workspace: 'workspace_not_found' },
  }),
  listListings: op({
    operationId: 'listListings', method: 'GET', path: '/workspaces/{workspace}/lists', tag: 'Knowledge',
    summary: 'List workspace listings (newest first)',
    access: 'bearer', ability: 'content:read', params: z.strictObject(ws), query: pagingQuery, body: undefined,
    response: ListingSummary, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  getForm: op({
    operationId: 'getForm', method: 'GET', path: '/workspaces/{workspace}/forms/{form}', tag: 'Forms', extension: true,
    summary: 'Get a form',
    access: 'bearer', ability: 'content:read', params: z.strictObject({ ...ws, form: Uuid }), query: noQuery, body: undefined,
    response: Form, status: 200, notFound: { workspace: 'workspace_not_found', form: 'form_not_found' },
  }),
  updateForm: op({
    operationId: 'updateForm', method: 'PATCH', path: '/workspaces/{workspace}/forms/{form}', tag: 'Forms',
    summary: 'Update a form',
    access: 'bearer', ability: 'content:write', params: z.strictObject({ ...ws, form: Uuid }), query: noQuery, body: UpdateFormBody,
    response: Form, status: 200, notFound: { workspace: 'workspace_not_found', form: 'form_not_found' },
  }),
  getPage: op({
    operationId: 'getPage', method: 'GET', path: '/workspaces/{workspace}/pages/{page}', tag: 'Pages', extension: true,
    summary: 'Get a page',
    access: 'bearer', ability: 'content:read', params: z.strictObject({ ...ws, page: Uuid }), query: noQuery, body: undefined,
    response: Page, status: 200, notFound: { workspace: 'workspace_not_found', page: 'page_not_found' },
  }),
  updatePage: op({
    operationId: 'updatePage', method: 'PATCH', path: '/workspaces/{workspace}/pages/{page}', tag: 'Pages',
    summary: 'Update a page',
    access: 'bearer', ability: 'content:write', params: z.strictObject({ ...ws, page: Uuid }), query: noQuery, body: UpdatePageBody,
    response: Page, status: 200, notFound: { workspace: 'workspace_not_found', page: 'page_not_found' },
  }),
  listArticles: op({
    operationId: 'listArticles', method: 'GET', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles', tag: 'Knowledge',
    summary: 'List the articles of a knowledge list',
    access: 'bearer', ability: 'content:read', params: z.strictObject({ ...ws, list: Uuid }), query: pagingQuery, body: undefined,
    response: ArticleSummary, status: 200, list: true,
    notFound: { workspace: 'workspace_not_found', list: 'knowledge_list_not_found' },
  }),
  getArticle: op({
    operationId: 'getArticle', method: 'GET', path: '/workspaces/{workspace}/knowledge-lists/{list}/articles/{article}', tag: 'Knowledge',
    extension: true, summary: 'Get an article with all its versions',
    access: 'bearer', ability: 'content:read', params: z.strictObject({ ...ws, list: Uuid, article: Uuid }), query: noQuery,
    body: undefined, response: Article, status: 200,
    notFound: { workspace: 'workspace_not_found', list: 'knowledge_list_not_found', article: 'article_not_found' },
  }),
  restoreArticleVersion: op({
    operationId: 'restoreArticleVersion', method: 'POST',
    path: '/workspaces/{workspace}/knowledge-lists/{list}/articles/{article}/versions/{version}/restore', tag: 'Knowledge',
    summary: 'Restore an article version as a new current version',
    description: '`version` is a version number (1, 2, …) or a version id.',
    access: 'bearer', ability: 'content:write',
    params: z.strictObject({ ...ws, list: Uuid, article: Uuid, version: z.string().min(1).max(64) }),
    query: noQuery, body: RestoreVersionBody, bodyOptional: true, response: RestoredVersion, status: 201,
    notFound: { workspace: 'workspace_not_found', list: 'knowledge_list_not_found', article: 'article_not_found', version: 'version_not_found' },
  }),
  listThreads: op({
    operationId: 'listThreads', method: 'GET', path: '/workspaces/{workspace}/threads', tag: 'Conversations',
    summary: 'List contact-centric multichannel threads (newest first)',
    access: 'bearer', ability: 'engagements:read', params: z.strictObject(ws), query: ThreadsQuery, body: undefined,
    response: ThreadSummary, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  listInboxThreads: op({
    operationId: 'listInboxThreads', method: 'GET', path: '/workspaces/{workspace}/inbox-threads', tag: 'Engagement inbox',
    summary: 'List threads (compatibility alias of listThreads)', aliasOf: 'listThreads',
    access: 'bearer', ability: 'engagements:read', params: z.strictObject(ws), query: ThreadsQuery, body: undefined,
    response: ThreadSummary, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  getThread: op({
    operationId: 'getThread', method: 'GET', path: '/workspaces/{workspace}/threads/{thread}', tag: 'Conversations', extension: true,
    summary: 'Get one thread with its messages',
    access: 'bearer', ability: 'engagements:read', params: z.strictObject({ ...ws, thread: Uuid }), query: noQuery, body: undefined,
    response: Thread, status: 200, notFound: { workspace: 'workspace_not_found', thread: 'thread_not_found' },
  }),
  listBookings: op({
    operationId: 'listBookings', method: 'GET', path: '/workspaces/{workspace}/bookings', tag: 'Booking',
    summary: 'List bookings (soonest first)',
    access: 'bearer', ability: 'engagements:read', params: z.strictObject(ws), query: BookingsQuery, body: undefined,
    response: Booking, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  listVoiceInteractions: op({
    operationId: 'listVoiceInteractions', method: 'GET', path: '/workspaces/{workspace}/voice-interactions', tag: 'Telephony',
    summary: 'List recent inbound calls and web voice messages (newest first)',
    access: 'bearer', ability: 'engagements:read', params: z.strictObject(ws), query: VoiceQuery, body: undefined,
    response: VoiceInteraction, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  createPaymentIntent: op({
    operationId: 'createPaymentIntent', method: 'POST', path: '/public/commerce/offers/{offer}/payment-intents', tag: 'Commerce',
    summary: 'Create a one-time commerce order and card payment intent',
    access: 'public', idempotent: true, params: z.strictObject({ offer: Uuid }), query: noQuery, body: CreatePaymentIntentBody,
    bodyOptional: true, response: CreatedPaymentIntent, status: 201, notFound: { offer: 'offer_not_found' },
  }),
  recordAgentChatOpened: op({
    operationId: 'recordAgentChatOpened', method: 'POST', path: '/public/agents/{agent}/analytics-events/opened', tag: 'Public actions',
    summary: 'Record an agent chat open',
    access: 'public', idempotent: true, params: z.strictObject({ agent: Uuid }), query: noQuery, body: AgentChatOpenedBody,
    bodyOptional: true, response: AgentChatOpened, status: 201, notFound: { agent: 'agent_not_found' },
  }),
  receivePaymentNotification: op({
    operationId: 'receivePaymentNotification', method: 'POST', path: '/webhooks/payments', tag: 'Commerce', extension: true,
    summary: 'Receive a signed payment notification (Stripe event format)',
    access: 'signature', params: z.strictObject({}), query: noQuery, body: undefined, response: PaymentNotificationReceipt, status: 200,
  }),
  // Finding things (EMULATOR.md §1): the ids the other operations need, one list per kind.
  getListing: op({
    operationId: 'getListing', method: 'GET', path: '/workspaces/{workspace}/lists/{list}', tag: 'Knowledge', extension: true,
    summary: 'Get a listing',
    access: 'bearer', ability: 'content:read', params: z.strictObject({ ...ws, list: Uuid }), query: noQuery, body: undefined,
    response: Listing, status: 200, notFound: { workspace: 'workspace_not_found', list: 'listing_not_found' },
  }),
  listForms: op({
    operationId: 'listForms', method: 'GET', path: '/workspaces/{workspace}/forms', tag: 'Forms', extension: true,
    summary: 'List the workspace\'s forms, most recently updated first (never updated last)',
    access: 'bearer', ability: 'content:read', params: z.strictObject(ws), query: pagingQuery, body: undefined,
    response: FormSummary, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  listPages: op({
    operationId: 'listPages', method: 'GET', path: '/workspaces/{workspace}/pages', tag: 'Pages', extension: true,
    summary: 'List the workspace\'s pages, most recently updated first (never updated last)',
    access: 'bearer', ability: 'content:read', params: z.strictObject(ws), query: PagesQuery, body: undefined,
    response: PageSummary, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  listKnowledgeLists: op({
    operationId: 'listKnowledgeLists', method: 'GET', path: '/workspaces/{workspace}/knowledge-lists', tag: 'Knowledge', extension: true,
    summary: 'List the workspace\'s knowledge lists, by name',
    access: 'bearer', ability: 'content:read', params: z.strictObject(ws), query: pagingQuery, body: undefined,
    response: KnowledgeListSummary, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  listOffers: op({
    operationId: 'listOffers', method: 'GET', path: '/workspaces/{workspace}/offers', tag: 'Commerce', extension: true,
    summary: 'List the workspace\'s offers, by title',
    access: 'bearer', ability: 'content:read', params: z.strictObject(ws), query: pagingQuery, body: undefined,
    response: OfferSummary, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  listAgents: op({
    operationId: 'listAgents', method: 'GET', path: '/workspaces/{workspace}/agents', tag: 'Public actions', extension: true,
    summary: 'List the workspace\'s agents, by name',
    access: 'bearer', ability: 'content:read', params: z.strictObject(ws), query: pagingQuery, body: undefined,
    response: AgentSummary, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  createOAuthApp: op({
    operationId: 'createOAuthApp', method: 'POST', path: '/workspaces/{workspace}/oauth-apps', tag: 'OAuth', extension: true,
    summary: 'Register an OAuth application (a confidential one\'s secret is in this response only)',
    access: 'bearer', ability: 'workspaces:write', params: z.strictObject(ws), query: noQuery, body: CreateOAuthAppBody,
    response: CreatedOAuthApp, status: 201, notFound: { workspace: 'workspace_not_found' },
  }),
  listOAuthApps: op({
    operationId: 'listOAuthApps', method: 'GET', path: '/workspaces/{workspace}/oauth-apps', tag: 'OAuth', extension: true,
    summary: 'List the OAuth applications registered in the workspace, newest first',
    access: 'bearer', ability: 'workspaces:read', params: z.strictObject(ws), query: pagingQuery, body: undefined,
    response: OAuthApp, status: 200, list: true, notFound: { workspace: 'workspace_not_found' },
  }),
  deleteOAuthApp: op({
    operationId: 'deleteOAuthApp', method: 'DELETE', path: '/workspaces/{workspace}/oauth-apps/{app}', tag: 'OAuth', extension: true,
    summary: 'Delete an OAuth application and revoke every token it was issued',
    access: 'bearer', ability: 'workspaces:write', params: z.strictObject({ ...ws, app: ClientId }), query: noQuery, body: undefined,
    response: OAuthApp, status: 200, notFound: { workspace: 'workspace_not_found', app: 'oauth_app_not_found' },
  }),
  listOAuthGrants: op({
    operationId: 'listOAuthGrants', method: 'GET', path: '/me/oauth-grants', tag: 'OAuth', extension: true,
    summary: 'List what the token\'s user authorized OAuth applications to do, newest first',
    access: 'token', params: z.strictObject({}), query: pagingQuery, body: undefined, response: OAuthGrant, status: 200, list: true,
  }),
  revokeOAuthGrant: op({
    operationId: 'revokeOAuthGrant', method: 'DELETE', path: '/me/oauth-grants/{grant}', tag: 'OAuth', extension: true,
    summary: 'Revoke one of the user\'s OAuth grants and every token issued under it',
    access: 'token', params: z.strictObject({ grant: GrantId }), query: noQuery, body: undefined,
    response: OAuthGrant, status: 200, notFound: { grant: 'oauth_grant_not_found' },
  }),
} as const;

export type OperationId = keyof typeof operations;
export type AnyOperation = Operation<z.ZodObject, z.ZodObject, z.ZodType | undefined, z.ZodType>;
export const operationList: AnyOperation[] = Object.values(operations) as AnyOperation[];

export function getOperation(id: string): AnyOperation | undefined {
  return (operations as Record<string, AnyOperation>)[id];
}

export const CONTRACT_VERSION = '1.0.0-alpha.1';
