import { z } from 'zod';
import { CONTRACT_VERSION, routes, type OperationId, type Route } from './table.js';
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

/** The shape of one operation's data: what `schemas` below gives each entry of the table. */
export interface OperationSchemas<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> {
  params: P;
  query: Q;
  body: B;
  /** The schema of `data` (for lists: of one item). */
  response: R;
}

/** One v1 operation: its route (table.ts) and its schemas, everything the router, validator, OpenAPI document and client need. */
export type Operation<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> = Route & OperationSchemas<P, Q, B, R> & { operationId: string };

const noQuery = z.strictObject({});
const pagingQuery = z.strictObject({ ...PagingQuery });
const ws = { workspace: Uuid };

const schemas = {
  getMe: { params: z.strictObject({}), query: noQuery, body: undefined, response: Me },
  listListingTemplates: { params: z.strictObject({}), query: pagingQuery, body: undefined, response: ListingTemplate },
  createListing: { params: z.strictObject(ws), query: noQuery, body: CreateListingBody, response: Listing },
  listListings: { params: z.strictObject(ws), query: pagingQuery, body: undefined, response: ListingSummary },
  getForm: { params: z.strictObject({ ...ws, form: Uuid }), query: noQuery, body: undefined, response: Form },
  updateForm: { params: z.strictObject({ ...ws, form: Uuid }), query: noQuery, body: UpdateFormBody, response: Form },
  getPage: { params: z.strictObject({ ...ws, page: Uuid }), query: noQuery, body: undefined, response: Page },
  updatePage: { params: z.strictObject({ ...ws, page: Uuid }), query: noQuery, body: UpdatePageBody, response: Page },
  listArticles: { params: z.strictObject({ ...ws, list: Uuid }), query: pagingQuery, body: undefined, response: ArticleSummary },
  getArticle: { params: z.strictObject({ ...ws, list: Uuid, article: Uuid }), query: noQuery, body: undefined, response: Article },
  restoreArticleVersion: { params: z.strictObject({ ...ws, list: Uuid, article: Uuid, version: z.string().min(1).max(64) }), query: noQuery, body: RestoreVersionBody, response: RestoredVersion },
  listThreads: { params: z.strictObject(ws), query: ThreadsQuery, body: undefined, response: ThreadSummary },
  listInboxThreads: { params: z.strictObject(ws), query: ThreadsQuery, body: undefined, response: ThreadSummary },
  getThread: { params: z.strictObject({ ...ws, thread: Uuid }), query: noQuery, body: undefined, response: Thread },
  listBookings: { params: z.strictObject(ws), query: BookingsQuery, body: undefined, response: Booking },
  listVoiceInteractions: { params: z.strictObject(ws), query: VoiceQuery, body: undefined, response: VoiceInteraction },
  createPaymentIntent: { params: z.strictObject({ offer: Uuid }), query: noQuery, body: CreatePaymentIntentBody, response: CreatedPaymentIntent },
  recordAgentChatOpened: { params: z.strictObject({ agent: Uuid }), query: noQuery, body: AgentChatOpenedBody, response: AgentChatOpened },
  receivePaymentNotification: { params: z.strictObject({}), query: noQuery, body: undefined, response: PaymentNotificationReceipt },
  getListing: { params: z.strictObject({ ...ws, list: Uuid }), query: noQuery, body: undefined, response: Listing },
  listForms: { params: z.strictObject(ws), query: pagingQuery, body: undefined, response: FormSummary },
  listPages: { params: z.strictObject(ws), query: PagesQuery, body: undefined, response: PageSummary },
  listKnowledgeLists: { params: z.strictObject(ws), query: pagingQuery, body: undefined, response: KnowledgeListSummary },
  listOffers: { params: z.strictObject(ws), query: pagingQuery, body: undefined, response: OfferSummary },
  listAgents: { params: z.strictObject(ws), query: pagingQuery, body: undefined, response: AgentSummary },
  createOAuthApp: { params: z.strictObject(ws), query: noQuery, body: CreateOAuthAppBody, response: CreatedOAuthApp },
  listOAuthApps: { params: z.strictObject(ws), query: pagingQuery, body: undefined, response: OAuthApp },
  deleteOAuthApp: { params: z.strictObject({ ...ws, app: ClientId }), query: noQuery, body: undefined, response: OAuthApp },
  listOAuthGrants: { params: z.strictObject({}), query: pagingQuery, body: undefined, response: OAuthGrant },
  revokeOAuthGrant: { params: z.strictObject({ grant: GrantId }), query: noQuery, body: undefined, response: OAuthGrant },
} satisfies Record<OperationId, OperationSchemas>;

type Operations = { [K in OperationId]: { operationId: K } & (typeof routes)[K] & (typeof schemas)[K] };

/** The contract: each route of table.ts with its schemas. */
export const operations = Object.fromEntries(
  (Object.keys(routes) as OperationId[]).map((id) => [id, { operationId: id, ...routes[id], ...schemas[id] }]),
) as Operations;

export type { OperationId };
export type AnyOperation = Operation<z.ZodObject, z.ZodObject, z.ZodType | undefined, z.ZodType>;
export const operationList: AnyOperation[] = Object.values(operations) as AnyOperation[];

export function getOperation(id: string): AnyOperation | undefined {
  return Object.hasOwn(operations, id) ? (operations as Record<string, AnyOperation>)[id] : undefined;
}

export { CONTRACT_VERSION };
