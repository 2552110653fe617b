/**
 * Response shapes as TypeScript types, derived from the contract's zod schemas. Type-only: commands
 * import these with `import type`, which TypeScript erases, so no zod loads at start-up.
 */
import type { z } from 'zod';
import type {
  ArticleSummary as ArticleSummarySchema,
  Article as ArticleSchema,
  ArticleVersion as ArticleVersionSchema,
  KnowledgeListSummary as KnowledgeListSummarySchema,
} from '../api/knowledge/schemas.js';
import type {
  Booking as BookingSchema,
  Message as MessageSchema,
  Thread as ThreadSchema,
  ThreadSummary as ThreadSummarySchema,
  VoiceInteraction as VoiceInteractionSchema,
} from '../api/engagement/schemas.js';
import type { Form as FormSchema, FormSummary as FormSummarySchema } from '../api/forms/schemas.js';
import type {
  Listing as ListingSchema,
  ListingSummary as ListingSummarySchema,
  ListingTemplate as ListingTemplateSchema,
} from '../api/listings/schemas.js';
import type {
  Page as PageSchema,
  PageSummary as PageSummarySchema,
  SuggestedReply as SuggestedReplySchema,
} from '../api/pages/schemas.js';
import type {
  AgentChatOpened as AgentChatOpenedSchema,
  AgentSummary as AgentSummarySchema,
  CreatedPaymentIntent as CreatedPaymentIntentSchema,
  OfferSummary as OfferSummarySchema,
} from '../api/public/schemas.js';

export type ListingSummary = z.output<typeof ListingSummarySchema>;
export type ListingTemplate = z.output<typeof ListingTemplateSchema>;
export type Form = z.output<typeof FormSchema>;
export type FormField = Form['fields'][number];
export type Page = z.output<typeof PageSchema>;
export type SuggestedReply = z.output<typeof SuggestedReplySchema>;
export type ArticleSummary = z.output<typeof ArticleSummarySchema>;
export type Article = z.output<typeof ArticleSchema>;
export type ArticleVersion = z.output<typeof ArticleVersionSchema>;
export type ThreadSummary = z.output<typeof ThreadSummarySchema>;
export type Message = z.output<typeof MessageSchema>;
export type Thread = z.output<typeof ThreadSchema>;
export type Booking = z.output<typeof BookingSchema>;
export type VoiceInteraction = z.output<typeof VoiceInteractionSchema>;
export type AgentChatOpened = z.output<typeof AgentChatOpenedSchema>;
export type CreatedPaymentIntent = z.output<typeof CreatedPaymentIntentSchema>;

export type FormSummary = z.output<typeof FormSummarySchema>;
export type PageSummary = z.output<typeof PageSummarySchema>;
export type KnowledgeListSummary = z.output<typeof KnowledgeListSummarySchema>;
export type OfferSummary = z.output<typeof OfferSummarySchema>;
export type AgentSummary = z.output<typeof AgentSummarySchema>;
export type Listing = z.output<typeof ListingSchema>;

import type { OperationId, operations } from './operations.js';
type Ops = typeof operations;
/** What one item of an operation's `data` is (for a list, one element of the page). */
export type ItemOf<K extends OperationId> = z.output<Ops[K]['response']>;
/** What an operation's `data` is: a page of items for a list operation. */
export type DataOf<K extends OperationId> = Ops[K] extends { list: true } ? ItemOf<K>[] : ItemOf<K>;
/** The operations whose response is a page. */
export type ListOperationId = { [K in OperationId]: Ops[K] extends { list: true } ? K : never }[OperationId];
