/**
 * The contract's enumerations, zod-free: the schemas, the commands' `choices`, the store's indexes
 * and the fixture schemas all import them from here, so a value is added in one place.
 */

/** Token abilities. */
export const ABILITIES = [
  'workspaces:read',
  'workspaces:write',
  'content:read',
  'content:write',
  'engagements:read',
  'engagements:manage',
  'actions:request',
] as const;
export type Ability = (typeof ABILITIES)[number];

/** `listThreads?view=`: inbox (open), unread (open and unread), starred (open or closed), closed. */
export const THREAD_VIEWS = ['inbox', 'unread', 'starred', 'closed'] as const;
export type ThreadView = (typeof THREAD_VIEWS)[number];
/** Message channels, in the order a thread's `channels` lists them. */
export const CHANNELS = ['web_chat', 'email', 'whatsapp', 'form'] as const;
export type Channel = (typeof CHANNELS)[number];

export const BOOKING_STATUSES = ['pending', 'confirmed', 'cancelled'] as const;

export const VOICE_KINDS = ['call', 'voice_message'] as const;
export const VOICE_STATUSES = ['answered', 'missed', 'voicemail'] as const;

export const ARTICLE_STATUSES = ['published', 'draft'] as const;

/** A page's schema.org type. */
export const SCHEMA_TYPES = [
  'WebPage',
  'ProfilePage',
  'ContactPage',
  'AboutPage',
  'Organization',
  'LocalBusiness',
  'Service',
] as const;

/** Where a public payment or chat open came from. */
export const SOURCE_TYPES = ['direct', 'button', 'list', 'popup', 'page', 'post', 'booking'] as const;
export const ORDER_STATES = ['pending', 'paid', 'failed', 'canceled', 'refunded'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
